package commission

import (
	"encoding/json"
	"errors"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/shopspring/decimal"
)

// This file is the fast path of decoding a commission lookup. The
// reflective path (Schedule.UnmarshalJSON through encoding/json, a map of
// json.RawMessage per entry) costs about 70 allocations per entry and
// reads the body three times; a 40-program response took ~5 ms. The fast
// path scans the body once, validating it as strictly as encoding/json
// does, and shares one copy of the body among all the entries' texts.
//
// Its contract: it either returns exactly what the reflective path returns
// (same entries, same texts, same values, same Extra) or declines, and the
// caller then runs the reflective path, which also produces the errors.
// It declines on anything outside the shape gateways send: malformed
// JSON, a value of the wrong type, duplicate known fields, keys written
// with escapes, the array form of data. Declining is always safe, so when
// in doubt it declines. FuzzFastDecode checks the contract.

// DecodeResponse reads the data of a commission lookup's response body
// ({"status_code":100,"data":{...}}), as decoding the body into
// struct{ Data Schedule `json:"data"` } with encoding/json does: a body
// without data gives a nil Schedule. Other fields are not read, only
// checked to be JSON.
func DecodeResponse(body []byte) (Schedule, error) {
	if s, ok := fastResponse(body); ok {
		return s, nil
	}
	var env struct {
		Data Schedule `json:"data"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return nil, err
	}
	return env.Data, nil
}

// errDecline stops the fast path; the reflective one takes over.
var errDecline = errors.New("commission: fast decode declined")

// maxFastDepth bounds nesting in skipped values; encoding/json allows
// 10000, deeper documents go to it.
const maxFastDepth = 1000

// fastDecoder walks a JSON text, held as one string: the texts and raw
// tokens of the result are slices of it, so the whole response costs one
// copy however many entries it has.
type fastDecoder struct {
	str      string
	pos      int
	listHint int                        // the length of the last list
	ints     []int64                    // a slab that pos_id pointers share
	decimals map[string]decimal.Decimal // parsed numbers by trimmed text
}

func newFastDecoder(data []byte) *fastDecoder {
	return &fastDecoder{str: string(data)}
}

func fastResponse(body []byte) (Schedule, bool) {
	d := newFastDecoder(body)
	var (
		out      Schedule
		seenData bool
	)
	err := d.object(func(key string) error {
		if key == "data" {
			if seenData {
				return errDecline
			}
			seenData = true
			var err error
			out, err = d.schedule()
			return err
		}
		if strings.EqualFold(key, "data") {
			// encoding/json matches field names case-insensitively.
			return errDecline
		}
		return d.skip(0)
	})
	if err != nil || !d.end() {
		return nil, false
	}
	return out, true
}

// fastSchedule decodes a Schedule as UnmarshalJSON's object form does.
func fastSchedule(data []byte) (Schedule, bool) {
	d := newFastDecoder(data)
	s, err := d.schedule()
	if err != nil || !d.end() {
		return nil, false
	}
	return s, true
}

// schedule reads null or the object keyed by installment count.
func (d *fastDecoder) schedule() (Schedule, error) {
	d.space()
	if d.literal("null") {
		return Schedule{}, nil
	}
	type keyed struct {
		key  string
		n    int
		list []Entry
	}
	var lists []keyed
	err := d.object(func(key string) error {
		for _, l := range lists {
			if l.key == key {
				return errDecline // a repeated key: the last one wins there
			}
		}
		n, err := strconv.Atoi(strings.TrimSpace(key))
		if err != nil || n < 0 || n > maxInstallment {
			return errDecline
		}
		list, err := d.entries()
		if err != nil {
			return err
		}
		lists = append(lists, keyed{key, n, list})
		return nil
	})
	if err != nil {
		return nil, err
	}
	// Keys are merged in name order, as UnmarshalJSON does ("01" and "1"
	// are the same count).
	sort.Slice(lists, func(i, j int) bool { return lists[i].key < lists[j].key })
	out := make(Schedule, len(lists))
	for _, l := range lists {
		for i := range l.list {
			if l.list[i].Installment == 0 {
				l.list[i].Installment = l.n
			}
		}
		if out[l.n] == nil && len(l.list) > 0 {
			out[l.n] = l.list // what append would copy it into
		} else {
			out[l.n] = append(out[l.n], l.list...)
		}
	}
	return out, nil
}

// entries reads null or an array of entry objects.
func (d *fastDecoder) entries() ([]Entry, error) {
	d.space()
	if d.literal("null") {
		return nil, nil
	}
	if !d.consume('[') {
		return nil, errDecline
	}
	// Lists of one response are usually the same length: each starts
	// with the capacity the last one needed, so most are allocated once
	// at their final size.
	list := make([]Entry, 0, max(d.listHint, 4))
	d.space()
	if d.consume(']') {
		return list, nil
	}
	for {
		list = append(list, Entry{})
		if err := d.entry(&list[len(list)-1]); err != nil {
			return nil, err
		}
		d.space()
		if d.consume(',') {
			continue
		}
		if d.consume(']') {
			d.listHint = len(list)
			return list, nil
		}
		return nil, errDecline
	}
}

// Bits of the known fields, to refuse repeats.
const (
	seenTitle = 1 << iota
	seenCardProgram
	seenCurrencyCode
	seenGetposCardProgram
	seenMerchantPercentage
	seenMerchantFixed
	seenUserPercentage
	seenUserFixed
	seenInstallment
	seenPosID
)

// entry reads one entry object as Entry.UnmarshalJSON does.
func (d *fastDecoder) entry(e *Entry) error {
	if err := d.open(); err != nil {
		return err // null or another kind is an error there
	}
	seen := 0
	for first := true; ; first = false {
		key, done, err := d.member(first)
		if err != nil || done {
			return err
		}
		bit := 0
		switch key {
		case "title":
			bit = seenTitle
			e.Title, err = d.text()
		case "card_program":
			bit = seenCardProgram
			e.CardProgram, err = d.text()
		case "currency_code":
			bit = seenCurrencyCode
			e.CurrencyCode, err = d.text()
		case "getpos_card_program":
			bit = seenGetposCardProgram
			e.GetposCardProgram, err = d.text()
		case "merchant_commission_percentage":
			bit = seenMerchantPercentage
			e.MerchantCommissionPercentage, err = d.value()
		case "merchant_commission_fixed":
			bit = seenMerchantFixed
			e.MerchantCommissionFixed, err = d.value()
		case "user_commission_percentage":
			bit = seenUserPercentage
			e.UserCommissionPercentage, err = d.value()
		case "user_commission_fixed":
			bit = seenUserFixed
			e.UserCommissionFixed, err = d.value()
		case "installment":
			bit = seenInstallment
			var n *int64
			if n, err = d.integer(); err == nil && n != nil {
				if *n < 0 || *n > maxInstallment {
					return errDecline // the reference path names the field
				}
				e.Installment = int(*n)
			}
		case "pos_id":
			bit = seenPosID
			e.PosID, err = d.integer()
		default:
			var start, end int
			if start, end, err = d.token(); err == nil {
				if e.Extra == nil {
					e.Extra = map[string]json.RawMessage{}
				}
				// A repeated extra field: the last one wins, as in a map.
				e.Extra[key] = json.RawMessage(d.str[start:end])
			}
		}
		if err != nil {
			return err
		}
		// A repeated known field: there the last one wins outright (a
		// null installment after a number leaves 0); decline rather
		// than mimic that.
		if seen&bit != 0 {
			return errDecline
		}
		seen |= bit
	}
}

// token reads one value and returns its bounds.
func (d *fastDecoder) token() (start, end int, err error) {
	d.space()
	start = d.pos
	if err := d.skip(0); err != nil {
		return 0, 0, err
	}
	return start, d.pos, nil
}

// text reads a field the way text() does: a string, a number's text, or
// "" for null.
func (d *fastDecoder) text() (string, error) {
	d.space()
	switch c := d.peek(); {
	case c == '"':
		s, _, err := d.string()
		return s, err
	case c == 'n':
		if d.literal("null") {
			return "", nil
		}
	case c == '-' || c >= '0' && c <= '9':
		start, end, err := d.token()
		return d.str[start:end], err
	}
	return "", errDecline
}

// integer reads a field the way integer() does.
func (d *fastDecoder) integer() (*int64, error) {
	start, end, err := d.token()
	if err != nil {
		return nil, err
	}
	tok := d.str[start:end]
	if n, ok := smallInteger(tok); ok {
		// One allocation per 64 integers rather than one each.
		if len(d.ints) == cap(d.ints) {
			d.ints = make([]int64, 0, 64)
		}
		d.ints = append(d.ints, n)
		return &d.ints[len(d.ints)-1], nil
	}
	n, err := integer([]byte(tok))
	if err != nil {
		return nil, errDecline
	}
	return n, nil
}

// smallInteger reads a JSON number token that is a whole number of at
// most 18 digits, which strconv.ParseInt reads the same way.
func smallInteger(tok string) (int64, bool) {
	digitsAt := 0
	if strings.HasPrefix(tok, "-") {
		digitsAt = 1
	}
	if n := len(tok) - digitsAt; n == 0 || n > 18 || digits(tok[digitsAt:]) != n {
		return 0, false
	}
	var n int64
	for i := digitsAt; i < len(tok); i++ {
		n = n*10 + int64(tok[i]-'0')
	}
	if digitsAt == 1 {
		n = -n
	}
	return n, true
}

// value reads a commission value the way Value.UnmarshalJSON does.
func (d *fastDecoder) value() (Value, error) {
	d.space()
	switch c := d.peek(); {
	case c == '"':
		start := d.pos
		s, _, err := d.string()
		if err != nil {
			return Value{}, err
		}
		return d.valueOf(start, s, true)
	case c == 'n':
		if d.literal("null") {
			return Value{}, nil
		}
	case c == '-' || c >= '0' && c <= '9':
		start, end, err := d.token()
		if err != nil {
			return Value{}, err
		}
		return d.valueOf(start, d.str[start:end], false)
	}
	return Value{}, errDecline
}

// valueOf is parseText without its copies: raw is the token from start
// to the current position, a slice of the decoder's copy of the body.
// Numbers are parsed once per distinct text: a response repeats a few
// ("0.0000" above all), and a decimal is immutable, so entries can share
// one.
func (d *fastDecoder) valueOf(start int, s string, quoted bool) (Value, error) {
	raw := d.str[start:d.pos]
	num := strings.TrimSpace(s)
	if quoted {
		for _, m := range notOffered {
			if num == m {
				return Value{raw: raw, text: s}, nil
			}
		}
	}
	if dec, ok := d.decimals[num]; ok {
		return Value{raw: raw, text: s, dec: dec, available: true}, nil
	}
	v, err := parseText(raw, s, quoted)
	if err != nil {
		return Value{}, errDecline
	}
	if d.decimals == nil {
		d.decimals = make(map[string]decimal.Decimal)
	}
	d.decimals[num] = v.dec
	return v, nil
}

// object reads an object, calling field with each key; field must read
// the key's value.
func (d *fastDecoder) object(field func(key string) error) error {
	if err := d.open(); err != nil {
		return err
	}
	for first := true; ; first = false {
		key, done, err := d.member(first)
		if err != nil || done {
			return err
		}
		if err := field(key); err != nil {
			return err
		}
	}
}

// open reads the opening brace of an object.
func (d *fastDecoder) open() error {
	d.space()
	if !d.consume('{') {
		return errDecline
	}
	return nil
}

// member reads the separator before an object's next member, and its key
// and colon; done is true at the closing brace instead.
func (d *fastDecoder) member(first bool) (key string, done bool, err error) {
	d.space()
	if d.consume('}') {
		return "", true, nil
	}
	if !first {
		if !d.consume(',') {
			return "", false, errDecline
		}
		d.space()
	}
	if d.peek() != '"' {
		return "", false, errDecline
	}
	key, plain, err := d.string()
	if err != nil {
		return "", false, err
	}
	if !plain {
		return "", false, errDecline // an escaped key might spell a known field
	}
	d.space()
	if !d.consume(':') {
		return "", false, errDecline
	}
	return key, false, nil
}

// string reads a string token and returns its text. plain is false when
// the token has escapes or bytes that are not UTF-8; its text then comes
// from encoding/json, which knows how to replace them.
func (d *fastDecoder) string() (s string, plain bool, err error) {
	// Most strings are short and plain ASCII: scan them with locals (the
	// loop below goes through d on every byte), leave the rest to it.
	str, start := d.str, d.pos
	for i := start + 1; i < len(str); i++ {
		c := str[i]
		if c == '"' {
			d.pos = i + 1
			return str[start+1 : i], true, nil
		}
		if c < 0x20 || c == '\\' || c >= utf8.RuneSelf {
			break
		}
	}
	return d.stringSlow()
}

// stringSlow is string for any string token.
func (d *fastDecoder) stringSlow() (s string, plain bool, err error) {
	start := d.pos
	d.pos++ // the opening quote
	plain = true
	ascii := true
	for {
		if d.pos >= len(d.str) {
			return "", false, errDecline
		}
		c := d.str[d.pos]
		switch {
		case c == '"':
			d.pos++
			inner := d.str[start+1 : d.pos-1]
			if plain && (ascii || utf8.ValidString(inner)) {
				return inner, true, nil
			}
			return unquote([]byte(d.str[start:d.pos]))
		case c < 0x20:
			return "", false, errDecline
		case c == '\\':
			plain = false
			d.pos++
			if d.pos >= len(d.str) {
				return "", false, errDecline
			}
			switch d.str[d.pos] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				d.pos++
			case 'u':
				if d.pos+4 >= len(d.str) {
					return "", false, errDecline
				}
				for i := d.pos + 1; i < d.pos+5; i++ {
					if !isHex(d.str[i]) {
						return "", false, errDecline
					}
				}
				d.pos += 5
			default:
				return "", false, errDecline
			}
		default:
			if c >= utf8.RuneSelf {
				ascii = false
			}
			d.pos++
		}
	}
}

// unquote is encoding/json's reading of a string token, kept out of
// string so that its result does not move to the heap on every call.
func unquote(token []byte) (string, bool, error) {
	var s string
	if err := json.Unmarshal(token, &s); err != nil {
		return "", false, errDecline
	}
	return s, false, nil
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// skip reads one value of any kind, checking it is JSON.
func (d *fastDecoder) skip(depth int) error {
	if depth > maxFastDepth {
		return errDecline
	}
	d.space()
	switch c := d.peek(); {
	case c == '"':
		_, _, err := d.string()
		return err
	case c == '{':
		return d.object(func(string) error { return d.skip(depth + 1) })
	case c == '[':
		d.pos++
		d.space()
		if d.consume(']') {
			return nil
		}
		for {
			if err := d.skip(depth + 1); err != nil {
				return err
			}
			d.space()
			if d.consume(',') {
				continue
			}
			if d.consume(']') {
				return nil
			}
			return errDecline
		}
	case c == '-' || c >= '0' && c <= '9':
		return d.number()
	case d.literal("true"), d.literal("false"), d.literal("null"):
		return nil
	}
	return errDecline
}

// number reads a number in JSON's grammar:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (d *fastDecoder) number() error {
	d.consume('-')
	switch c := d.peek(); {
	case c == '0':
		d.pos++
	case c >= '1' && c <= '9':
		d.pos += digits(d.str[d.pos:])
	default:
		return errDecline
	}
	if d.consume('.') {
		n := digits(d.str[d.pos:])
		if n == 0 {
			return errDecline
		}
		d.pos += n
	}
	if c := d.peek(); c == 'e' || c == 'E' {
		d.pos++
		if c := d.peek(); c == '+' || c == '-' {
			d.pos++
		}
		n := digits(d.str[d.pos:])
		if n == 0 {
			return errDecline
		}
		d.pos += n
	}
	return nil
}

// literal consumes word if it is next.
func (d *fastDecoder) literal(word string) bool {
	if strings.HasPrefix(d.str[d.pos:], word) {
		d.pos += len(word)
		return true
	}
	return false
}

func (d *fastDecoder) peek() byte {
	if d.pos < len(d.str) {
		return d.str[d.pos]
	}
	return 0
}

func (d *fastDecoder) consume(c byte) bool {
	if d.pos < len(d.str) && d.str[d.pos] == c {
		d.pos++
		return true
	}
	return false
}

func (d *fastDecoder) space() {
	for d.pos < len(d.str) {
		switch d.str[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// end reports whether only white space is left.
func (d *fastDecoder) end() bool {
	d.space()
	return d.pos == len(d.str)
}
