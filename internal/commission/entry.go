package commission

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Kind is what an entry of a commission lookup prices.
type Kind int

const (
	// KindOther is an entry paycli cannot place.
	KindOther Kind = iota
	// KindRegular prices a card program (it has a pos_id and a card_program).
	KindRegular
	// KindSavedCardToken prices payments with a saved card token.
	KindSavedCardToken
	// KindForeignCard prices cards issued abroad.
	KindForeignCard
)

// String returns the kind's stable name, used in JSON output.
func (k Kind) String() string {
	switch k {
	case KindRegular:
		return "regular"
	case KindSavedCardToken:
		return "saved_card_token"
	case KindForeignCard:
		return "foreign_card"
	}
	return "other"
}

// MarshalText writes the kind's name.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// Entry is one element of a commission lookup's data["<n>"] list. The known
// fields are typed; every other field is kept in Extra, so that decoding and
// encoding an entry loses nothing.
type Entry struct {
	Title                        string
	CardProgram                  string
	MerchantCommissionPercentage Value
	MerchantCommissionFixed      Value
	UserCommissionPercentage     Value
	UserCommissionFixed          Value
	CurrencyCode                 string
	Installment                  int
	// PosID is the terminal id; nil when the entry has none (only regular
	// entries carry one).
	PosID *int64
	// GetposCardProgram is the card program in upper case (regular entries).
	GetposCardProgram string
	// Extra holds the fields this type does not know (card_type,
	// issuer_name, ...), as the gateway wrote them.
	Extra map[string]json.RawMessage
}

// entryFields is an entry as encoding/json reads it: each field's JSON
// token, as the gateway wrote it, by name.
type entryFields map[string]token

// token is a JSON value as written. Unlike json.RawMessage it does not copy
// what the decoder hands it but keeps a slice of the decoder's input: the
// decoding functions below copy their input once, whole, and every token
// of every entry shares that copy (a copy per field was a quarter of the
// allocations of a lookup).
type token []byte

func (t *token) UnmarshalJSON(data []byte) error {
	*t = data[:len(data):len(data)] // an append must not write over the next token
	return nil
}

// knownFieldOrder are the JSON names of Entry's typed fields, in name
// order: fields are read in that order, so that an entry with two bad
// fields always reports the same one.
var knownFieldOrder = [...]string{
	"card_program", "currency_code", "getpos_card_program", "installment",
	"merchant_commission_fixed", "merchant_commission_percentage",
	"pos_id", "title", "user_commission_fixed", "user_commission_percentage",
}

// isKnownField reports whether name is the JSON name of a typed field.
func isKnownField(name string) bool {
	_, found := slices.BinarySearch(knownFieldOrder[:], name)
	return found
}

// UnmarshalJSON decodes an entry, keeping unknown fields in Extra. A
// commission value that is neither a number nor a marker is an error naming
// the field.
func (e *Entry) UnmarshalJSON(data []byte) error {
	var fields entryFields
	if err := json.Unmarshal(bytes.Clone(data), &fields); err != nil {
		return fmt.Errorf("commission entry: %w", err)
	}
	return e.fromFields(fields, nil)
}

// fromFields reads an entry from its fields, sharing equal texts through
// in (nil: none). The Extra values share the fields' memory.
func (e *Entry) fromFields(fields entryFields, in interner) error {
	if fields == nil {
		return fmt.Errorf("commission entry: expected an object, got null")
	}
	var out Entry
	known := 0
	for _, name := range knownFieldOrder {
		tok, ok := fields[name]
		if !ok {
			continue
		}
		raw := json.RawMessage(tok)
		known++
		var err error
		switch name {
		case "title":
			out.Title, err = text(raw, in)
		case "card_program":
			out.CardProgram, err = text(raw, in)
		case "currency_code":
			out.CurrencyCode, err = text(raw, in)
		case "getpos_card_program":
			out.GetposCardProgram, err = text(raw, in)
		case "merchant_commission_percentage":
			err = out.MerchantCommissionPercentage.UnmarshalJSON(raw)
		case "merchant_commission_fixed":
			err = out.MerchantCommissionFixed.UnmarshalJSON(raw)
		case "user_commission_percentage":
			err = out.UserCommissionPercentage.UnmarshalJSON(raw)
		case "user_commission_fixed":
			err = out.UserCommissionFixed.UnmarshalJSON(raw)
		case "installment":
			var n *int64
			n, err = integer(raw)
			switch {
			case err != nil || n == nil:
			case *n < 0 || *n > maxInstallment:
				// A count the schedule's keys could not hold would not
				// survive re-encoding (and means nothing).
				err = fmt.Errorf("%d is not an installment count", *n)
			default:
				out.Installment = int(*n)
			}
		case "pos_id":
			out.PosID, err = integer(raw)
		}
		if err != nil {
			return &FieldError{Field: name, Program: programOf(fields), Err: err}
		}
	}
	if known < len(fields) {
		out.Extra = make(map[string]json.RawMessage, len(fields)-known)
		for name, raw := range fields {
			if !isKnownField(name) {
				out.Extra[name] = json.RawMessage(raw)
			}
		}
	}
	*e = out
	return nil
}

// FieldError is an entry field the gateway wrote in a way paycli cannot
// read: a commission value that is neither a number nor a marker, a
// pos_id that is not a whole number.
type FieldError struct {
	// Installment is the installment count the entry is listed under; 0
	// while the entry is decoded on its own.
	Installment int
	// Program is the entry's card_program (or getpos_card_program) as far
	// as it could be read; empty for the special kinds.
	Program string
	Field   string
	Err     error
}

func (e *FieldError) Error() string {
	var b strings.Builder
	if e.Installment > 0 {
		fmt.Fprintf(&b, "installment %d, ", e.Installment)
	}
	if e.Program != "" {
		fmt.Fprintf(&b, "program %s, ", quote(e.Program))
	} else {
		b.WriteString("entry without a card program, ")
	}
	fmt.Fprintf(&b, "field %s: %v", e.Field, e.Err)
	return b.String()
}

func (e *FieldError) Unwrap() error { return e.Err }

// programOf names an entry for an error message, from whatever of its
// program fields can be read.
func programOf(fields entryFields) string {
	for _, name := range []string{"card_program", "getpos_card_program"} {
		if s, err := text(json.RawMessage(fields[name]), nil); err == nil && strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}

// MarshalJSON writes the typed fields, then the extra ones; keys come out
// sorted. title, pos_id and getpos_card_program are left out when empty, as
// deployments that do not have them send nothing.
func (e Entry) MarshalJSON() ([]byte, error) {
	m := make(map[string]any, len(knownFieldOrder)+len(e.Extra))
	for k, v := range e.Extra {
		if !isKnownField(k) {
			m[k] = v
		}
	}
	if e.Title != "" {
		m["title"] = e.Title
	}
	m["card_program"] = e.CardProgram
	m["merchant_commission_percentage"] = e.MerchantCommissionPercentage
	m["merchant_commission_fixed"] = e.MerchantCommissionFixed
	m["user_commission_percentage"] = e.UserCommissionPercentage
	m["user_commission_fixed"] = e.UserCommissionFixed
	m["currency_code"] = e.CurrencyCode
	m["installment"] = e.Installment
	if e.PosID != nil {
		m["pos_id"] = *e.PosID
	}
	if e.GetposCardProgram != "" {
		m["getpos_card_program"] = e.GetposCardProgram
	}
	return json.Marshal(m)
}

// Kind recognises the entry from its title and, when the title says nothing
// (or is missing), from its shape: an entry with a pos_id or a card program
// is regular. An untitled entry with neither is a saved-card-token or a
// foreign-card entry, which the entry alone cannot tell apart; it is
// KindOther here, and Classify places it by its position in its list.
func (e Entry) Kind() Kind { return e.kind(kindFromTitle) }

// kind is Kind with the title read by fromTitle (kindFromTitle, or a
// memo of it).
func (e *Entry) kind(fromTitle func(string) (Kind, bool)) Kind {
	if k, ok := fromTitle(e.Title); ok {
		return k
	}
	if e.PosID != nil || strings.TrimSpace(e.CardProgram) != "" {
		return KindRegular
	}
	return KindOther
}

// kindFromTitle knows the titles seen on real gateways, in English and
// Turkish: "Regular Commission", "Single Payment Commission", "Save Card
// Token Payment Commission", "Foreign Card Commission".
func kindFromTitle(title string) (Kind, bool) {
	t := strings.ToLower(strings.TrimSpace(title))
	switch {
	case t == "":
		return KindOther, false
	case strings.Contains(t, "token") || strings.Contains(t, "save card") || strings.Contains(t, "saved card") ||
		strings.Contains(t, "kayıtlı kart") || strings.Contains(t, "kayitli kart"):
		return KindSavedCardToken, true
	case strings.Contains(t, "foreign") || strings.Contains(t, "yabancı") || strings.Contains(t, "yabanci") ||
		strings.Contains(t, "yurt dışı") || strings.Contains(t, "yurtdışı") || strings.Contains(t, "yurt disi"):
		return KindForeignCard, true
	case strings.Contains(t, "regular") || strings.Contains(t, "single payment") || strings.Contains(t, "standart") ||
		strings.Contains(t, "tek çekim") || strings.Contains(t, "tek cekim"):
		return KindRegular, true
	}
	return KindOther, false
}

// Classify returns the kind of each entry of one installment's list. Titled
// and regular-shaped entries are placed by Entry.Kind. The untitled entries
// with no card program and no pos_id are placed by order, the order in
// which gateways that do send titles list them on installment 1: first the
// saved-card-token entry, then the foreign-card entry. Any further ones, and
// any on other installments, stay KindOther.
func Classify(entries []Entry) []Kind {
	kinds := make([]Kind, len(entries))
	next := []Kind{KindSavedCardToken, KindForeignCard}
	// A list repeats one title ("Regular Commission") for most entries:
	// reading it once saves lowering it for each.
	var memo struct {
		title string
		kind  Kind
		ok    bool
	}
	fromTitle := func(title string) (Kind, bool) {
		if title != memo.title || title == "" {
			memo.title = title
			memo.kind, memo.ok = kindFromTitle(title)
		}
		return memo.kind, memo.ok
	}
	for i := range entries {
		kinds[i] = entries[i].kind(fromTitle)
		if kinds[i] == KindSavedCardToken || kinds[i] == KindForeignCard {
			// A titled one takes its place in the order.
			next = removeKind(next, kinds[i])
		}
	}
	for i, e := range entries {
		if kinds[i] != KindOther || strings.TrimSpace(e.Title) != "" || e.Installment != 1 {
			continue
		}
		if len(next) > 0 {
			kinds[i], next = next[0], next[1:]
		}
	}
	return kinds
}

func removeKind(ks []Kind, k Kind) []Kind {
	out := ks[:0:0]
	for _, x := range ks {
		if x != k {
			out = append(out, x)
		}
	}
	return out
}

// maxInstallment bounds an installment count (real schedules stop at a few
// dozen); it keeps every accepted count representable as an int everywhere.
const maxInstallment = 1<<31 - 1

// Schedule is the data of a commission lookup: entries per installment
// count.
type Schedule map[int][]Entry

// Installments returns the installment counts in ascending order.
func (s Schedule) Installments() []int {
	ns := make([]int, 0, len(s))
	for n := range s {
		ns = append(ns, n)
	}
	sort.Ints(ns)
	return ns
}

// UnmarshalJSON reads the gateway's object keyed by installment count as a
// decimal string. It also accepts an array of entry lists (what a PHP
// backend sends for an empty or zero-indexed map); there each entry's own
// installment field places it. An entry that does not say its installment
// takes the one of its key.
//
// encoding/json reads the whole data in one pass, every entry into its
// fields' raw tokens; the entries are then read from those tokens without
// parsing the JSON again.
func (s *Schedule) UnmarshalJSON(data []byte) error {
	// One copy for every token of every entry (see token).
	data = bytes.Clone(bytes.TrimSpace(data))
	out := Schedule{}
	in := interner{}
	switch {
	case bytes.Equal(data, []byte("null")):
	case len(data) > 0 && data[0] == '[':
		var lists [][]entryFields
		if err := json.Unmarshal(data, &lists); err != nil {
			return fmt.Errorf("commission data: %w", shapeError(data, err))
		}
		for _, list := range lists {
			for _, fields := range list {
				var e Entry
				if err := e.fromFields(fields, in); err != nil {
					return fmt.Errorf("commission data: %w", err)
				}
				out[e.Installment] = append(out[e.Installment], e)
			}
		}
	default:
		var byKey map[string][]entryFields
		if err := json.Unmarshal(data, &byKey); err != nil {
			return fmt.Errorf("commission data: %w", shapeError(data, err))
		}
		// Keys are merged in name order ("01" and "1" are the same count).
		keys := make([]string, 0, len(byKey))
		for key := range byKey {
			keys = append(keys, key)
		}
		sort.Strings(keys)
		for _, key := range keys {
			n, err := strconv.Atoi(strings.TrimSpace(key))
			if err != nil || n < 0 || n > maxInstallment {
				return fmt.Errorf("commission data: key %s is not an installment count", quote(key))
			}
			list := make([]Entry, len(byKey[key]))
			for i, fields := range byKey[key] {
				if err := list[i].fromFields(fields, in); err != nil {
					var fe *FieldError
					if errors.As(err, &fe) {
						fe.Installment = n
					}
					return fmt.Errorf("commission data: %w", err)
				}
				if list[i].Installment == 0 {
					list[i].Installment = n
				}
			}
			out[n] = append(out[n], list...)
		}
	}
	*s = out
	return nil
}

// shapeError explains, as a FieldError, why data is not a commission
// table: the first element that is not where the table's shape wants it
// (an entry listed on its own rather than in a list under its installment
// count, a string where a list belongs), named by the installment and
// program of the entry when it has them. It runs only once decoding has
// failed, so a table is still read in one pass. err is returned when the
// shape is right and something else is wrong.
func shapeError(data []byte, err error) error {
	const want = `data lists the entries under their installment count: {"1": [entry, …], …}`
	type element struct {
		where       string
		installment int
		raw         json.RawMessage
	}
	var elems []element
	var byKey map[string]json.RawMessage
	var list []json.RawMessage
	switch {
	case json.Unmarshal(data, &byKey) == nil:
		for _, key := range slices.Sorted(maps.Keys(byKey)) {
			n, _ := strconv.Atoi(strings.TrimSpace(key))
			elems = append(elems, element{fmt.Sprintf("data[%q]", key), n, byKey[key]})
		}
	case json.Unmarshal(data, &list) == nil:
		for i, raw := range list {
			elems = append(elems, element{fmt.Sprintf("data[%d]", i), 0, raw})
		}
	case json.Valid(data):
		return &FieldError{Field: "data", Err: fmt.Errorf("%s where the commission table belongs; %s", describeShape(data), want)}
	default:
		return err
	}
	for _, el := range elems {
		raw := bytes.TrimSpace(el.raw)
		if len(raw) > 0 && raw[0] == '{' {
			var fields entryFields
			_ = json.Unmarshal(raw, &fields)
			return &FieldError{Installment: installmentOf(fields), Program: programOf(fields), Field: el.where,
				Err: fmt.Errorf("an entry listed on its own, not in a list under its installment count; %s", want)}
		}
		var entries []json.RawMessage
		if json.Unmarshal(raw, &entries) != nil {
			return &FieldError{Installment: el.installment, Field: el.where, Err: fmt.Errorf("%s where a list of entries belongs; %s", describeShape(raw), want)}
		}
		for i, e := range entries {
			if e = bytes.TrimSpace(e); len(e) == 0 || e[0] != '{' {
				return &FieldError{Installment: el.installment, Field: fmt.Sprintf("%s[%d]", el.where, i),
					Err: fmt.Errorf("%s where an entry belongs; %s", describeShape(e), want)}
			}
		}
	}
	return err
}

// describeShape names the kind of a JSON value: "an object", "a string", ….
func describeShape(data []byte) string {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return "nothing"
	}
	switch data[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// installmentOf reads an entry's own installment count ("installment", or
// "installments_number" as other answers of the gateway name it), 0 when it
// has none.
func installmentOf(fields entryFields) int {
	for _, name := range []string{"installment", "installments_number"} {
		var n json.Number
		if raw, ok := fields[name]; ok && json.Unmarshal(bytes.Trim(raw, `"`), &n) == nil {
			if v, err := strconv.Atoi(n.String()); err == nil {
				return v
			}
		}
	}
	return 0
}

// DecodeResponse reads the data of a commission lookup's response body
// ({"status_code":100,"data":{...}}) in one pass: a body without data gives
// a nil Schedule. Other fields are not read.
func DecodeResponse(body []byte) (Schedule, error) {
	var env struct {
		Data Schedule `json:"data"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return nil, err
	}
	return env.Data, nil
}

// MarshalJSON writes the schedule keyed by installment count as a string,
// as the gateway does.
func (s Schedule) MarshalJSON() ([]byte, error) {
	m := make(map[string][]Entry, len(s))
	for n, list := range s {
		if list == nil {
			list = []Entry{}
		}
		m[strconv.Itoa(n)] = list
	}
	return json.Marshal(m)
}

// text reads a JSON string; numbers are kept as their text and null is "".
func text(raw json.RawMessage, in interner) (string, error) {
	raw = bytes.TrimSpace(raw)
	switch {
	case bytes.Equal(raw, []byte("null")):
		return "", nil
	case len(raw) > 0 && raw[0] == '"':
		if inner, ok := plainString(raw); ok {
			return in.text(inner), nil
		}
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	case len(raw) > 0 && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9'):
		return string(raw), nil
	}
	return "", fmt.Errorf("expected a string, got %s", describeJSON(raw))
}

// integer reads a JSON integer or a string holding one; null and "" are nil.
func integer(raw json.RawMessage) (*int64, error) {
	s, err := text(raw, nil)
	if err != nil {
		return nil, err
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("%s is not a whole number", quote(s))
	}
	return &n, nil
}

// plainString returns the text of a JSON string token without escapes
// that is valid UTF-8, which is its bytes between the quotes; ok is false
// for any other token, which encoding/json must read.
func plainString(raw []byte) (inner []byte, ok bool) {
	n := len(raw)
	if n < 2 || raw[0] != '"' || raw[n-1] != '"' {
		return nil, false
	}
	inner = raw[1 : n-1]
	if bytes.ContainsAny(inner, `\"`) || hasControl(inner) || !utf8.Valid(inner) {
		return nil, false
	}
	return inner, true
}

// unquoteString reads a JSON string token; a plain one (plainString) is a
// slice of raw, so only tokens with escapes (rare in gateway answers) go
// through encoding/json again.
func unquoteString(raw string) (string, error) {
	if n := len(raw); n >= 2 {
		if _, ok := plainString([]byte(raw)); ok {
			return raw[1 : n-1], nil
		}
	}
	var s string
	err := json.Unmarshal([]byte(raw), &s)
	return s, err
}

// interner shares one string among the equal texts of a lookup: titles,
// currency codes and program names repeat on every installment count.
type interner map[string]string

// text returns b as a string, the same string for equal short texts.
func (in interner) text(b []byte) string {
	if s, ok := in[string(b)]; ok {
		return s
	}
	s := string(b)
	if in != nil && len(s) <= 64 && len(in) < 4096 {
		in[s] = s
	}
	return s
}

// hasControl reports a byte JSON does not allow unescaped in a string.
func hasControl(b []byte) bool {
	for _, c := range b {
		if c < 0x20 {
			return true
		}
	}
	return false
}
