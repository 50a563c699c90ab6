package pgjournal

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/journal"
)

// TestHonestLinesKeepTheirColumns: the columns the database takes from a
// line's entry (schema step 6) are the ones paycli writes beside it, for
// every line paycli writes: NULs escaped in the line or in a column
// only, a backslash beside them, a walletpay line of an older paycli
// without a kind, a line without a gateway, a time to the nanosecond.
// None is refused.
func TestHonestLinesKeepTheirColumns(t *testing.T) {
	t.Parallel()
	srv := pg.Start(t)
	db, admin := deskDB(t, srv)
	ctx := context.Background()
	ayse := openAs(t, srv, db, "ayse", "desk-1", 101)
	code := 100
	base := intent("att-0", "INV-0", "RF-0")
	cases := []struct {
		name string
		edit func(e *journal.Entry)
	}{
		{"a refund", func(*journal.Entry) {}},
		{"a NUL in the message, a backslash in the invoice", func(e *journal.Entry) { e.Message, e.Invoice = "no\x00pe", `INV\1\\0` }},
		{"a NUL in the invoice", func(e *journal.Entry) { e.Invoice = "INV\x00\\0" }},
		{"a NUL in the attempt and the gateway", func(e *journal.Entry) { e.Attempt, e.Gateway = "att\x00x", "gw\\\x00" }},
		{"a walletpay without a kind", func(e *journal.Entry) { e.Kind, e.Ref = "", "" }},
		{"no gateway", func(e *journal.Entry) { e.Gateway = "" }},
		{"a time to the nanosecond", func(e *journal.Entry) { e.Time = e.Time.Add(999_999_999 * time.Nanosecond) }},
		{"a time in another zone", func(e *journal.Entry) { e.Time = e.Time.In(time.FixedZone("TRT", 3*3600)).Add(1500 * time.Nanosecond) }},
		{"evidence", func(e *journal.Entry) {
			e.Evidence = &journal.Evidence{StatusCode: 100, TransactionStatus: "Completed", Fields: map[string]string{"a\x00": "b\\"}}
		}},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := base
			in.Attempt, in.Invoice, in.Ref = in.Attempt+string(rune('a'+i)), in.Invoice+string(rune('a'+i)), in.Ref+string(rune('a'+i))
			c.edit(&in)
			out := outcome(in, journal.Succeeded, code)
			out.Message += "\x00"
			for _, e := range []journal.Entry{in, out} {
				if err := ayse.Append(ctx, e); err != nil {
					t.Fatalf("%s line: %v", e.Type, err)
				}
				args, err := ayse.lineArgs(e)
				if err != nil {
					t.Fatal(err)
				}
				var got [6]string
				var at time.Time
				err = admin.QueryRow(ctx, `SELECT attempt, type, kind, gateway, invoice, outcome, at FROM paycli.journal_lines
WHERE attempt = $1 AND type = $2`, args[0], e.Type).Scan(&got[0], &got[1], &got[2], &got[3], &got[4], &got[5], &at)
				if err != nil {
					t.Fatalf("%s line: %v", e.Type, err)
				}
				want := [6]string{args[0].(string), args[1].(string), args[2].(string), args[3].(string), args[4].(string), args[5].(string)}
				if got != want || !at.Equal(e.Time.Truncate(time.Microsecond)) {
					t.Errorf("%s line's columns %q at %s, paycli wrote %q at %s", e.Type, got, at, want, e.Time)
				}
			}
		})
	}
}

// TestEntryFieldsKnownToTheDatabase: the fields the database knows a line
// and its evidence by (paycli.entry_fields, paycli.evidence_fields), with
// their JSON types, are journal.Entry's and journal.Evidence's.
func TestEntryFieldsKnownToTheDatabase(t *testing.T) {
	t.Parallel()
	srv := pg.Start(t)
	_, admin := deskDB(t, srv)
	kinds := map[reflect.Type]string{
		reflect.TypeFor[string](): "string", reflect.TypeFor[time.Time](): "time", reflect.TypeFor[*int](): "int",
		reflect.TypeFor[int](): "int", reflect.TypeFor[*journal.Evidence](): "evidence", reflect.TypeFor[map[string]string](): "texts",
	}
	for _, c := range []struct {
		fn  string
		typ reflect.Type
	}{{"paycli.entry_fields()", reflect.TypeFor[journal.Entry]()}, {"paycli.evidence_fields()", reflect.TypeFor[journal.Evidence]()}} {
		want := map[string]string{}
		for i := range c.typ.NumField() {
			f := c.typ.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			kind, ok := kinds[f.Type]
			if !ok {
				t.Errorf("%s.%s: a %s, which the database's check does not know: add it to %s (006_operator_rights.sql)", c.typ, f.Name, f.Type, c.fn)
			}
			want[name] = kind
		}
		var data []byte
		if err := admin.QueryRow(context.Background(), "SELECT "+c.fn).Scan(&data); err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		if err := json.Unmarshal(data, &got); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %v, Go's %s has %v", c.fn, got, c.typ, want)
		}
	}
}
