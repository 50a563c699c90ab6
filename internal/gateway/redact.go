package gateway

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/paycli/paycli/internal/redact"
)

// IsSecretField reports whether a request or response field holds a
// secret by its name (app_secret, merchant_key, hash_key, a wallet token,
// the payer's e-mail, a card's security code…): the fields every dump and
// log masks.
func IsSecretField(name string) bool { return redact.IsSecretField(name) }

// IsCardField reports whether a field holds a card number by its name
// (cc_no, credit_card_no, card_number…): the one list the client's
// redaction and `paycli api`'s summary share.
func IsCardField(name string) bool { return redact.IsCardField(name) }

// secretHeaders are masked in debug logs.
var secretHeaders = []string{"Authorization", "Cookie", "Set-Cookie", "Proxy-Authorization"}

// maskSecret shows the first and last four characters of a long secret and
// nothing of a short one, as everywhere else in paycli.
func maskSecret(s string) string { return redact.Secret(s) }

// redactBody returns a body fit for a debug log: JSON with secret fields
// masked and card numbers masked everywhere; other text with card numbers
// and key=value / "key": "value" secrets masked.
func redactBody(body []byte) string {
	if len(bytes.TrimSpace(body)) == 0 {
		return ""
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err == nil && !dec.More() {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(redact.JSONValue(v, "", redactField)); err == nil {
			return strings.TrimRight(buf.String(), "\n")
		}
	}
	return redactText(string(body))
}

// redactField masks one field's value by its name (a string holding a
// JSON object field by field, redactNested), and card numbers in any.
func redactField(key, v string) string {
	switch k := strings.ToLower(key); {
	case IsSecretField(k):
		return maskSecret(v)
	case IsCardField(k):
		return redact.CardField(v)
	}
	if inner, ok := redactNested(v); ok {
		return inner
	}
	return redact.Cards(v)
}

// redactNested redacts a string that holds a JSON object, as purchase/link
// sends its invoice (hash_key, bill_email inside): the object is redacted
// and written back as a string. ok is false for any other string.
func redactNested(s string) (string, bool) {
	if !strings.HasPrefix(strings.TrimSpace(s), "{") {
		return "", false
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var obj map[string]any
	if dec.Decode(&obj) != nil || dec.More() {
		return "", false
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(redact.JSONValue(obj, "", redactField)) != nil {
		return "", false
	}
	return strings.TrimRight(buf.String(), "\n"), true
}

// secretPair finds "key": "value" and key=value pairs of secret fields in
// text that is not JSON (form bodies, HTML, logs echoed back).
var secretPair = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)("?(?:` + strings.Join(quotedSorted(redact.SecretFields()), "|") + `)"?\s*[:=]\s*"?)([^"&\s,;}<]+)`)
})

// quotedSorted is names as alternatives of a pattern, in name order.
func quotedSorted(names []string) []string {
	ks := make([]string, 0, len(names))
	for _, k := range names {
		ks = append(ks, regexp.QuoteMeta(k))
	}
	slices.Sort(ks)
	return ks
}

// cardPair finds "key": "value" and key=value pairs of card fields in text
// that is not JSON.
var cardPair = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)("?\b(?:` + strings.Join(quotedSorted(redact.CardFields()), "|") + `)\b"?\s*[:=]\s*"?)([0-9][0-9 -]*)`)
})

func redactText(s string) string {
	re := secretPair()
	s = re.ReplaceAllStringFunc(s, func(m string) string {
		sub := re.FindStringSubmatch(m)
		return sub[1] + maskSecret(sub[2])
	})
	cards := cardPair()
	s = cards.ReplaceAllStringFunc(s, func(m string) string {
		sub := cards.FindStringSubmatch(m)
		return sub[1] + redact.CardField(sub[2])
	})
	return redact.Cards(redact.URL(s))
}

// redactHeader returns a header value fit for a log.
func redactHeader(name string, values []string) string {
	v := strings.Join(values, ", ")
	if !slices.ContainsFunc(secretHeaders, func(h string) bool { return strings.EqualFold(h, name) }) {
		return redact.Cards(v)
	}
	if scheme, cred, ok := strings.Cut(v, " "); ok && strings.EqualFold(name, "Authorization") {
		return scheme + " " + maskSecret(cred)
	}
	return maskSecret(v)
}

// redactURL masks userinfo and secret query parameters.
func redactURL(u *url.URL) string {
	c := *u
	if c.RawQuery != "" {
		q := c.Query()
		for k, vs := range q {
			for i := range vs {
				if IsSecretField(k) {
					vs[i] = maskSecret(vs[i])
				} else {
					vs[i] = redact.Cards(vs[i])
				}
			}
		}
		c.RawQuery = q.Encode()
	}
	return redact.URL(c.String())
}

// headerNames returns a header's names in a stable order.
func headerNames(h http.Header) []string {
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}
