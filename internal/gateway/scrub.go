package gateway

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// scrubbed stands for a secret the gateway echoed.
const scrubbed = "•••"

// minScrubbed is the shortest secret scrubbed from answers: a shorter value
// (a card's security code, a short app_id) is too likely to occur in an
// answer by chance, in an amount or an order number, to be replaced
// wherever it appears; dumps and logs mask those by their field names.
const minScrubbed = 8

// secretsSent are the secrets a call sends: the client's credentials, the
// bearer token, and the value of every secret field of the request body
// (the hash_key made for it, a wallet token, the payer's e-mail…), the
// longest first so that a secret holding another is scrubbed whole.
func (c *Client) secretsSent(payload []byte, authorization string) []string {
	secrets := []string{c.creds.AppID, c.creds.AppSecret, c.creds.MerchantKey}
	if _, tok, ok := strings.Cut(authorization, " "); ok {
		secrets = append(secrets, tok)
	}
	var walk func(v any, key string)
	walk = func(v any, key string) {
		switch x := v.(type) {
		case map[string]any:
			for k, val := range x {
				walk(val, k)
			}
		case []any:
			for _, val := range x {
				walk(val, key)
			}
		case string:
			if IsSecretField(key) {
				secrets = append(secrets, x)
			}
		}
	}
	var body any
	if json.Unmarshal(payload, &body) == nil {
		walk(body, "")
	}
	out := secrets[:0]
	for _, s := range secrets {
		if len(s) >= minScrubbed && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}

// scrub replaces every secret in an answer, as written or as JSON escapes
// it (PHP writes "/" as "\/"), with "•••": a gateway that echoes the
// request (a status_description holding the app_secret, the merchant_key
// or the hash_key it was sent) never hands a secret on, to a terminal, a
// batch result or the journal. In a JSON body only the text of strings is
// touched, so the answer stays JSON with the same shape.
func scrub(body []byte, secrets []string) []byte {
	return newScrubber(secrets).scrub(body)
}

// scrubber is scrub's forms of the secrets, made once for the many rows
// of one streamed answer.
type scrubber struct {
	old      []string
	replacer *strings.Replacer
}

func newScrubber(secrets []string) scrubber {
	var old []string
	for _, s := range secrets {
		esc, _ := json.Marshal(s)
		e := string(esc[1 : len(esc)-1])
		for _, form := range []string{s, e, strings.ReplaceAll(e, "/", `\/`)} {
			if !slices.Contains(old, form) {
				old = append(old, form)
			}
		}
	}
	pairs := make([]string, 0, 2*len(old))
	for _, o := range old {
		pairs = append(pairs, o, scrubbed)
	}
	return scrubber{old: old, replacer: strings.NewReplacer(pairs...)}
}

func (sc scrubber) scrub(body []byte) []byte {
	if len(sc.old) == 0 || len(body) == 0 || !slices.ContainsFunc(sc.old, func(o string) bool { return bytes.Contains(body, []byte(o)) }) {
		return body
	}
	r := sc.replacer
	if t := bytes.TrimSpace(body); len(t) == 0 || t[0] != '{' && t[0] != '[' {
		return []byte(r.Replace(string(body)))
	}
	// The strings of a JSON body, each with its quotes, are replaced in
	// place; what lies between them (keys' quotes aside, numbers, literals)
	// is left alone.
	var out bytes.Buffer
	for i := 0; i < len(body); {
		if body[i] != '"' {
			out.WriteByte(body[i])
			i++
			continue
		}
		end := i + 1
		for end < len(body) && body[end] != '"' {
			if body[end] == '\\' {
				end++
			}
			end++
		}
		end = min(end+1, len(body))
		out.WriteString(r.Replace(string(body[i:end])))
		i = end
	}
	return out.Bytes()
}
