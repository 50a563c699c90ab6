package gateway

import (
	"bytes"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/net/html"
)

// A 3D payment (paySmart3D, payByCardToken) is answered with an HTML page
// whatever the client asks for. The page is either the challenge, a form
// posted to the bank's 3D server, or a refusal: a form posted to the
// merchant's cancel_url carrying error_code, status_code and
// status_description (omnipay-sipay's recording PurchaseResponse3D-HtmlError:
// code 13, items not adding up to the total). Both are read here.

// pageForm is one form of a page: where it posts and its inputs.
type pageForm struct {
	action string
	fields map[string]string
}

// maxPageForms bounds the forms read of one page: a gateway page has one.
const maxPageForms = 8

// readPageForms reads the forms of an HTML page (golang.org/x/net/html's
// tokenizer: the one HTML reader of the client), each with the inputs up
// to the next form; attribute values are unescaped, names lower-cased.
func readPageForms(page []byte) []pageForm {
	var forms []pageForm
	z := html.NewTokenizer(bytes.NewReader(page))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return forms
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			switch string(name) {
			case "form":
				if len(forms) == maxPageForms {
					return forms
				}
				a := tagAttrs(z, hasAttr)
				forms = append(forms, pageForm{action: a["action"], fields: map[string]string{}})
			case "input":
				if len(forms) == 0 {
					continue
				}
				a := tagAttrs(z, hasAttr)
				f := forms[len(forms)-1]
				if n := a["name"]; n != "" {
					if _, seen := f.fields[n]; !seen {
						f.fields[n] = a["value"]
					}
				}
			}
		}
	}
}

// tagAttrs reads the current tag's attributes, the first of each name.
func tagAttrs(z *html.Tokenizer, more bool) map[string]string {
	out := map[string]string{}
	for more {
		var k, v []byte
		k, v, more = z.TagAttr()
		if _, seen := out[string(k)]; !seen {
			out[string(k)] = string(v)
		}
	}
	return out
}

// pageRefusal reads a 3D payment's page as the gateway means it: nil for
// the challenge, an *APIError for a refusal — a form posted to the
// cancel_url that was sent, or whose status_code (or error_code) is not
// 100. The error carries the form's code and status_description; a
// refusal without a readable code is a rejection all the same.
func pageRefusal(endpoint string, httpStatus int, page, sent []byte) error {
	cancelURL := sentField(sent, "cancel_url")
	for _, f := range readPageForms(page) {
		codeText, hasCode := f.fields["status_code"]
		if !hasCode {
			codeText, hasCode = f.fields["error_code"]
		}
		code, codeErr := strconv.Atoi(strings.TrimSpace(codeText))
		toCancel := cancelURL != "" && strings.TrimSpace(f.action) == cancelURL
		if !toCancel && (!hasCode || codeErr == nil && code == StatusSuccess) {
			continue
		}
		e := &APIError{Endpoint: endpoint, HTTPStatus: httpStatus, Description: cleanDescription(f.fields["status_description"])}
		if hasCode && codeErr == nil && code != StatusSuccess {
			e.StatusCode, e.HasStatusCode = code, true
		}
		if e.Description == "" {
			e.Description = "the gateway's page sends the buyer back to the cancel_url"
		}
		return e
	}
	return nil
}

// sentField is a field of a request body, JSON or a form.
func sentField(body []byte, name string) string {
	if o, err := ParseObject(body); err == nil {
		v, _, _ := o.Text(name)
		return strings.TrimSpace(v)
	}
	if q, err := url.ParseQuery(string(body)); err == nil {
		return strings.TrimSpace(q.Get(name))
	}
	return ""
}
