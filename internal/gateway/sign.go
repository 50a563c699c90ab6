package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/paycli/paycli/internal/hashkey"
)

// A Call is a request the client builds, signs and sends: every request
// type of this package (WalletPayRequest, RefundRequest,
// ConfirmPaymentRequest, CompletePaymentRequest, Request) is one. The
// client signs it when it sends it, and DryRun shows exactly what it would
// send, so that the two cannot differ.
type Call interface {
	// encode returns the call's endpoint and its body as it goes on the
	// wire, merchant_key and hash_key included.
	encode(c *Client) (endpoint, []byte, error)
}

// RequireMerchantKey returns ErrNoMerchantKey when the client has no
// merchant_key: every call that carries a hash_key (walletPay, check
// status, refund, confirmPayment, payment/complete) and the lookups that
// name the merchant (getpos, installments) are refused without one, before
// anything is sent. A command that moves money asks this before its first
// check, so that it is refused before anything exists.
func (c *Client) RequireMerchantKey() error {
	if c.creds.MerchantKey == "" {
		return ErrNoMerchantKey
	}
	return nil
}

// hashKey makes the hash_key of layout over values, the client's
// merchant_key added as the layout's merchant_key field, with the client's
// app_secret and a fresh iv and salt.
func (c *Client) hashKey(layout string, values map[string]string) (string, error) {
	if err := c.RequireMerchantKey(); err != nil {
		return "", err
	}
	l, ok := hashkey.LookupLayout(layout)
	if !ok {
		return "", fmt.Errorf("%w: no hash_key layout %q", ErrInvalidRequest, layout)
	}
	all := map[string]string{"merchant_key": c.creds.MerchantKey}
	for k, v := range values {
		all[k] = v
	}
	plain, err := l.Plaintext(all)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrInvalidRequest, err)
	}
	secret := c.creds.AppSecret
	if l.Key == hashkey.KeyMerchantKey {
		secret = c.creds.MerchantKey
	}
	c.randomMu.Lock()
	defer c.randomMu.Unlock()
	return hashkey.GenerateFrom(c.random, secret, plain)
}

// encodeCall builds the body of a call from its wire form.
func encodeCall(ep endpoint, wire any, err error) (endpoint, []byte, error) {
	if err != nil {
		return ep, nil, fmt.Errorf("%s: %w", ep.name, err)
	}
	payload, err := json.Marshal(wire)
	if err != nil {
		return ep, nil, fmt.Errorf("%s: encoding the request: %w", ep.name, err)
	}
	return ep, payload, nil
}

// sendCall signs and sends call, reading its answer into v.
func (c *Client) sendCall(ctx context.Context, call Call, v any) (*envelope, error) {
	ep, payload, err := call.encode(c)
	if err != nil {
		return nil, err
	}
	return c.send(ctx, ep, payload, v)
}

// HashLayouts names the hash_key layouts a body can be signed with
// (SignObject): the table of docs/hash-keys.md.
func HashLayouts() []string { return hashkey.LayoutNames() }

// Sign says what SignObject adds to a request body from the client's
// credentials.
type Sign struct {
	// MerchantKey adds merchant_key.
	MerchantKey bool
	// Credentials adds app_id and app_secret (a refund's body carries them).
	Credentials bool
	// Layout adds a hash_key made with that layout (HashLayouts) over the
	// body's fields, after the others, so that it may cover them.
	Layout string
}

// SignError is a body SignObject cannot complete. Nothing was sent.
type SignError struct {
	// Adding is what was being added: "merchant_key", "credentials" or
	// "hash_key".
	Adding string
	// Layout is the hash_key's layout, when Adding is "hash_key", and
	// Fields the fields it hashes, in order.
	Layout string
	Fields []string
	// Present is a field the body already holds: one of the two values
	// would be a mistake, and the client cannot tell which.
	Present string
	// Missing are the layout's fields the body lacks, in layout order.
	Missing []string
	// Err is any other reason (a field that is not text, a value holding
	// '|', no merchant_key: ErrNoMerchantKey).
	Err error
}

func (e *SignError) Error() string {
	switch {
	case e.Present != "":
		return fmt.Sprintf("adding %s: the body already holds %s", e.Adding, e.Present)
	case len(e.Missing) > 0:
		return fmt.Sprintf("hash_key layout %s: the body has no %s", e.Layout, strings.Join(e.Missing, ", "))
	}
	return fmt.Sprintf("adding %s: %v", e.Adding, e.Err)
}

func (e *SignError) Unwrap() error { return e.Err }

// SignObject returns the request body o with the client's secrets added as
// s asks: merchant_key, then app_id and app_secret, then a hash_key over
// the body's fields. A body that already holds one of them is refused
// rather than overwritten. The fields a layout hashes are read as
// Object.Text reads them (a number as written: 100.00 stays 100.00); the
// card payment layout's installment is the body's installments_number when
// it has no installment, as in paySmart2D and paySmart3D.
func (c *Client) SignObject(o Object, s Sign) (Object, error) {
	o = slices.Clone(o)
	add := func(adding, key, value string) error {
		if o.Index(key) >= 0 {
			return &SignError{Adding: adding, Present: key}
		}
		raw, _ := json.Marshal(value)
		o = append(o, Member{Key: key, Value: raw})
		return nil
	}
	if s.MerchantKey {
		if err := c.RequireMerchantKey(); err != nil {
			return nil, &SignError{Adding: "merchant_key", Err: err}
		}
		if err := add("merchant_key", "merchant_key", c.creds.MerchantKey); err != nil {
			return nil, err
		}
	}
	if s.Credentials {
		for _, kv := range [][2]string{{"app_id", c.creds.AppID}, {"app_secret", c.creds.AppSecret}} {
			if err := add("credentials", kv[0], kv[1]); err != nil {
				return nil, err
			}
		}
	}
	if s.Layout == "" {
		return o, nil
	}
	layout, ok := hashkey.LookupLayout(s.Layout)
	fail := func(e *SignError) (Object, error) {
		e.Adding, e.Layout, e.Fields = "hash_key", s.Layout, layout.Fields
		return nil, e
	}
	if !ok {
		return fail(&SignError{Err: fmt.Errorf("%w: no hash_key layout %q (the layouts are %s)", ErrInvalidRequest, s.Layout, strings.Join(HashLayouts(), ", "))})
	}
	if o.Index("hash_key") >= 0 {
		return fail(&SignError{Present: "hash_key"})
	}
	values := map[string]string{}
	var missing []string
	for _, name := range layout.Fields {
		key := name
		if name == "installment" && o.Index(name) < 0 && o.Index("installments_number") >= 0 {
			key = "installments_number"
		}
		v, ok, err := o.Text(key)
		switch {
		case err != nil:
			return fail(&SignError{Err: err})
		case !ok:
			missing = append(missing, name)
		}
		values[name] = v
	}
	if len(missing) > 0 {
		return fail(&SignError{Missing: missing})
	}
	plain, err := layout.Plaintext(values)
	if err != nil {
		return fail(&SignError{Err: err})
	}
	c.randomMu.Lock()
	hk, err := hashkey.GenerateFrom(c.random, c.creds.AppSecret, plain)
	c.randomMu.Unlock()
	if err != nil {
		return fail(&SignError{Err: err})
	}
	raw, _ := json.Marshal(hk)
	return append(o, Member{Key: "hash_key", Value: raw}), nil
}

// Member is one key of a JSON object with its value as written.
type Member struct {
	Key   string
	Value json.RawMessage
}

// Object is a JSON object whose keys keep their order and whose values keep
// their text (numbers are not rounded): a request body as `paycli api`
// builds it, and as SignObject completes it.
type Object []Member

// Index is the position of key, -1 when the object has none.
func (o Object) Index(key string) int {
	for i, m := range o {
		if m.Key == key {
			return i
		}
	}
	return -1
}

// MarshalJSON writes the members in order.
func (o Object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(m.Key)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.Value)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// ParseObject reads a body that must be one JSON object; a key given twice
// is refused, since the gateway would read one of the two and paycli
// cannot know which.
func ParseObject(body []byte) (Object, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("the body is not a JSON object")
	}
	var o Object
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, errors.New("the body is not valid JSON")
		}
		key := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, errors.New("the body is not valid JSON")
		}
		if o.Index(key) >= 0 {
			return nil, fmt.Errorf("the body holds the key %q twice", key)
		}
		o = append(o, Member{key, v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, errors.New("the body is not valid JSON")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("the body holds more than one JSON value")
	}
	return o, nil
}

// Text is the value of a field as a hash_key plaintext holds it: a string
// as it is, a number as written; anything else cannot be hashed. ok is
// false when the object has no such field.
func (o Object) Text(key string) (text string, ok bool, err error) {
	i := o.Index(key)
	if i < 0 {
		return "", false, nil
	}
	raw := bytes.TrimSpace(o[i].Value)
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, true, nil
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err == nil {
		return string(raw), true, nil
	}
	return "", true, fmt.Errorf("the field %s is %s, not a string or a number", key, kindOfJSON(raw))
}

func kindOfJSON(raw []byte) string {
	switch {
	case len(raw) == 0:
		return "empty"
	case raw[0] == '{':
		return "an object"
	case raw[0] == '[':
		return "an array"
	case raw[0] == 'n':
		return "null"
	}
	return "a boolean"
}
