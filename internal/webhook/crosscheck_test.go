package webhook_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"testing"

	"github.com/paycli/paycli/internal/webhook"
)

// The cross-check signs webhooks with paycli's PHP implementation of the
// hash_key (internal/hashkey/testdata/crosscheck.php, written from
// docs/protocol.md on PHP's hash and openssl functions) and has PHP encode
// the bodies (http_build_query, json_encode), so that none of paycli's Go
// code makes what paycli then verifies. It needs php-cli with the openssl
// extension; .ci/tools.sh installs it where apt-get is available.

func php(t *testing.T, script string, arg string, in []map[string]string) []map[string]string {
	t.Helper()
	bin, err := exec.LookPath("php")
	if err != nil {
		t.Skip("php is not on PATH: skipping the cross-check against paycli's PHP scripts (install php-cli to run it)")
	}
	if err := exec.CommandContext(t.Context(), bin, "-r", `exit(function_exists("openssl_encrypt") ? 0 : 1);`).Run(); err != nil {
		t.Skip("php has no openssl extension: skipping the cross-check against paycli's PHP scripts")
	}
	// Opened here too, not only by php, so that go test's cache notices
	// when the script changes.
	if _, err := os.ReadFile(script); err != nil {
		t.Fatal(err)
	}
	var stdin bytes.Buffer
	enc := json.NewEncoder(&stdin)
	for _, c := range in {
		if err := enc.Encode(c); err != nil {
			t.Fatal(err)
		}
	}
	args := []string{script}
	if arg != "" {
		args = append(args, arg)
	}
	cmd := exec.CommandContext(t.Context(), bin, args...)
	cmd.Stdin = &stdin
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("php %s: %v\n%s", script, err, stderr.String())
	}
	var answers []map[string]string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var a map[string]string
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatalf("php answer %q: %v", sc.Text(), err)
		}
		answers = append(answers, a)
	}
	if len(answers) != len(in) {
		t.Fatalf("php answered %d of %d\n%s", len(answers), len(in), stderr.String())
	}
	return answers
}

type phpWebhook struct {
	kind   webhook.Kind
	fields map[string]string
}

func phpWebhooks() []phpWebhook {
	r := rand.New(rand.NewPCG(21, 22))
	var cases []phpWebhook
	for i := range 100 {
		amount := fmt.Sprintf("%d.%02d", r.IntN(100000), r.IntN(100))
		inv := fmt.Sprintf("INV-%d/ş+&=%d", i, r.IntN(1000)) // characters form encoding must carry
		if i%2 == 0 {
			cases = append(cases, phpWebhook{webhook.Sale, map[string]string{"status": fmt.Sprint(r.IntN(2)), "total": amount,
				"invoice_id": inv, "order_id": fmt.Sprintf("VP%017d", r.Int64N(1e17)), "currency_code": []string{"TRY", "USD", "EUR"}[r.IntN(3)]}})
		} else {
			cases = append(cases, phpWebhook{webhook.Refund, map[string]string{"status": []string{"Completed", "Fail"}[r.IntN(2)],
				"amount": amount, "invoice_id": inv, "order_id": fmt.Sprintf("VP%017d", r.Int64N(1e17))}})
		}
	}
	return cases
}

// TestPHPSignedWebhooksVerify: webhooks signed in PHP verify, in both
// encodings; with the amount changed after signing they do not, and the
// amount is named.
func TestPHPSignedWebhooksVerify(t *testing.T) {
	cases := phpWebhooks()
	var toSign []map[string]string
	for _, c := range cases {
		pt, err := c.kind.Layout().Plaintext(c.fields)
		if err != nil {
			t.Fatal(err)
		}
		toSign = append(toSign, map[string]string{"app_secret": secret, "data": pt})
	}
	hashes := php(t, "../hashkey/testdata/crosscheck.php", "make", toSign)

	var bodies []map[string]string
	for i, c := range cases {
		signed := maps.Clone(c.fields)
		signed["hash_key"] = hashes[i]["hash_key"]
		bodies = append(bodies, signed)
		changed := maps.Clone(signed)
		amountField := c.kind.Layout().Amounts[0]
		changed[amountField] = "1" + c.fields[amountField]
		bodies = append(bodies, changed)
	}
	encoded := php(t, "testdata/encode.php", "", bodies)

	for i, e := range encoded {
		c := cases[i/2]
		wantValid := i%2 == 0
		for _, enc := range []struct{ ct, body string }{{"application/x-www-form-urlencoded", e["form"]}, {"application/json", e["json"]}} {
			b, err := webhook.Parse(enc.ct, []byte(enc.body))
			if err != nil {
				t.Fatalf("%s %s: %v", enc.ct, enc.body, err)
			}
			if b.Kind() != c.kind {
				t.Errorf("%s read as %s", enc.body, b.Kind())
			}
			err = b.Verify(secret)
			var ie *webhook.InvalidError
			switch {
			case wantValid && err != nil:
				t.Errorf("PHP-signed %s: %v", enc.body, err)
			case !wantValid && !errors.As(err, &ie):
				t.Errorf("amount changed after signing, %s: Verify = %v", enc.body, err)
			case !wantValid && ie.Field != c.kind.Layout().Amounts[0]:
				t.Errorf("amount changed after signing, %s: field %q named", enc.body, ie.Field)
			}
		}
	}
}
