package gateway

import (
	"html"
	"net/url"
	"regexp"
	"strconv"
	"strings"
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

var (
	formTag  = regexp.MustCompile(`(?is)<form\b([^>]*)>`)
	inputTag = regexp.MustCompile(`(?is)<input\b([^>]*)>`)
	attr     = regexp.MustCompile(`(?is)([a-z_:-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))`)
)

// maxPageForms bounds the forms read of one page: a gateway page has one.
const maxPageForms = 8

// readPageForms reads the forms of an HTML page, each with the inputs up to
// the next form; attribute values are unescaped.
func readPageForms(page []byte) []pageForm {
	s := string(page)
	locs := formTag.FindAllStringSubmatchIndex(s, maxPageForms)
	forms := make([]pageForm, 0, len(locs))
	for i, loc := range locs {
		end := len(s)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		f := pageForm{action: tagAttrs(s[loc[2]:loc[3]])["action"], fields: map[string]string{}}
		for _, in := range inputTag.FindAllStringSubmatch(s[loc[1]:end], -1) {
			a := tagAttrs(in[1])
			if name := a["name"]; name != "" {
				if _, seen := f.fields[name]; !seen {
					f.fields[name] = a["value"]
				}
			}
		}
		forms = append(forms, f)
	}
	return forms
}

// tagAttrs reads a tag's attributes, names lower-cased, values unescaped.
func tagAttrs(s string) map[string]string {
	out := map[string]string{}
	for _, m := range attr.FindAllStringSubmatch(s, -1) {
		name := strings.ToLower(m[1])
		if _, seen := out[name]; !seen {
			out[name] = html.UnescapeString(m[2] + m[3] + m[4])
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
