package sandbox

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// TestOpenAPIDescribesEveryRoute: the description holds every route the
// router answers, and nothing else; each API operation has its table
// entry; the document is valid OpenAPI 3 (kin-openapi's validator) and
// served at both its paths.
func TestOpenAPIDescribesEveryRoute(t *testing.T) {
	fx, _ := explainedFixture(t)
	data, err := fx.gw.OpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(data)
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("not valid OpenAPI 3: %v", err)
	}
	var described []string
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			described = append(described, method+" "+path)
		}
	}
	routes := fx.gw.Routes()
	for _, route := range routes {
		if !slices.Contains(described, route) {
			t.Errorf("route %s is not in the description", route)
		}
		_, path, _ := strings.Cut(route, " ")
		if !strings.Contains(path, "/__sandbox/") && operationAt(path) == nil && otherRoute(path) == "" {
			t.Errorf("route %s has no entry in the operation table (operations.go)", route)
		}
	}
	for _, d := range described {
		if !slices.Contains(routes, d) {
			t.Errorf("the description has %s, which the router does not answer", d)
		}
	}
	// What the handlers check is what the description says.
	body := doc.Paths.Value(Base + "/api/walletPay").Post.RequestBody.Value.Content.Get("application/json").Schema.Value
	if !slices.Equal(body.Required, opWalletPay.required) {
		t.Errorf("walletPay's required fields: %v, want %v", body.Required, opWalletPay.required)
	}
	tx := doc.Paths.Value(Base + "/api/paySmart2D").Post.RequestBody.Value.Content.Get("application/json").Schema.Value.Properties["transaction_type"].Value
	if len(tx.Enum) != 2 {
		t.Errorf("paySmart2D's transaction_type: %+v", tx.Enum)
	}
	for _, path := range []string{OpenAPIPath, Base + OpenAPIPath} {
		rec := fx.send("GET", path, "", "", nil)
		if rec.Code != 200 || rec.Body.String() != string(data) {
			t.Errorf("GET %s: HTTP %d, %d bytes", path, rec.Code, rec.Body.Len())
		}
	}
}

// TestOpenAPIFieldTablesAreWhatHandlersCheck: for every operation, a
// request missing one required field is refused naming that field, in
// the table's order, and an enumerated field refuses a value outside its
// enumeration.
func TestOpenAPIFieldTablesAreWhatHandlersCheck(t *testing.T) {
	fx, rl := explainedFixture(t)
	bearer := fx.bearer()
	for _, op := range operations {
		if len(op.required) == 0 || op == opResend {
			continue
		}
		for i, name := range op.required {
			body := map[string]string{}
			for _, before := range op.required[:i] {
				body[before] = sampleValue(before)
			}
			raw, _ := json.Marshal(body)
			fx.send("POST", Base+op.path, "application/json", string(raw), map[string]string{"Authorization": "Bearer " + bearer})
			e := lastEntry(t, rl)
			if e.Field != name && !(e.Field == "" && strings.Contains(e.Why, name)) {
				// A field before it was refused for its sample value:
				// the order is still the table's up to there.
				if !slices.Contains(op.required[:i], e.Field) {
					t.Errorf("%s without %s: refused on %q (%s)", op.path, name, e.Field, e.Why)
				}
				break
			}
		}
	}
	for _, c := range []struct {
		op    *operation
		field string
	}{{opPaySmart2D, "transaction_type"}, {opGetpos, "commission_by"}, {opCommissions, "commission_by"}, {opChallenge, "decision"}} {
		if !fieldSpecs()[c.field].allows(fieldSpecs()[c.field].enum[0]) || fieldSpecs()[c.field].allows("nonsense") {
			t.Errorf("%s's enumeration", c.field)
		}
		body := map[string]string{c.field: "nonsense"}
		for _, name := range c.op.required {
			if name != c.field {
				body[name] = sampleValue(name)
			}
		}
		raw, _ := json.Marshal(body)
		res := fx.send("POST", Base+c.op.path, "application/json", string(raw), map[string]string{"Authorization": "Bearer " + bearer})
		if e := lastEntry(t, rl); !e.Refused() {
			t.Errorf("%s with %s=nonsense was not refused: %s", c.op.path, c.field, res.Body)
		}
	}
}

// sampleValue is a value of a field's shape (not necessarily one the
// handler accepts past its presence check).
func sampleValue(name string) string {
	switch name {
	case "total", "amount":
		return "10.00"
	case "currency_code":
		return "TRY"
	case "installments_number", "expiry_month", "status", "id":
		return "1"
	case "expiry_year":
		return "2099"
	case "cvv":
		return "000"
	case "cc_no", "card_number":
		return "4355084355084358"
	case "credit_card":
		return "435508"
	case "bill_email":
		return "a@example.com"
	case "decision":
		return "approve"
	case "invoice":
		return "{}"
	case "return_url", "cancel_url":
		return "https://merchant.test/back"
	}
	return "x"
}

// TestOpenAPIDocIsCurrent: docs/sandbox-openapi.json is what gendocs
// writes now.
func TestOpenAPIDocIsCurrent(t *testing.T) {
	want, err := OpenAPIDocument()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join("..", "..", "docs", "sandbox-openapi.json"))
	if err != nil || string(got) != string(want) {
		t.Errorf("docs/sandbox-openapi.json is stale (%v): run go run ./cmd/gendocs", err)
	}
}

// TestOpenAPINamesEveryFieldTheHandlersRead: every field a handler reads
// (fields.get with a literal name, in the package's sources) is in the
// operation table, so the description leaves none out.
func TestOpenAPINamesEveryFieldTheHandlersRead(t *testing.T) {
	known := map[string]bool{}
	for _, op := range operations {
		for _, f := range concat(op.required, op.optional) {
			known[f] = true
		}
	}
	for _, f := range concat(linkInvoiceFields, linkInvoiceOptional) {
		known[f] = true
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	read := regexp.MustCompile(`\b(?:f|inv)\.get\("([a-z_]+)"\)`)
	seen := 0
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range read.FindAllStringSubmatch(string(src), -1) {
			seen++
			if !known[m[1]] {
				t.Errorf("%s reads the field %s, which no operation in operations.go lists", file, m[1])
			}
		}
	}
	if seen < 50 {
		t.Fatalf("found only %d field reads: the pattern no longer matches the handlers", seen)
	}
}
