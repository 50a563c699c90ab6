package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// Explanations for the request log shared by several handlers (explain.go
// records them; docs/sandbox.md, Request log).

// inFlightExplanation explains a 3 for an invoice another request is paying.
var inFlightExplanation = explanation{field: "invoice_id",
	why: "duplicate invoice: another payment for this invoice is in flight (sent at the same time); an invoice id pays once"}

// threeDWhy explains a 60: the card is the published 3D test card.
const threeDWhy = "the card is the published test card that requires 3D Secure (4355080000003009): pay it with paySmart3D; nothing was stored"

// declineWhy explains a decline chosen by a published test card.
func declineWhy(card TestCard) string {
	return fmt.Sprintf("declined by the simulated provider: the card is the published test card that declines with payment_reason_code %s (%s); any other Luhn-valid card approves",
		card.ReasonCode, card.Reason)
}

// jsonProblem says what is wrong with a body that is not one JSON object:
// where a syntax error is (the byte offset, line and column), that the body
// ends early (truncated), or what it holds instead of an object.
func jsonProblem(text string) string {
	var v any
	err := json.Unmarshal([]byte(text), &v)
	var syntax *json.SyntaxError
	switch {
	case errors.As(err, &syntax):
		if syntax.Offset >= int64(len(text)) || strings.Contains(syntax.Error(), "unexpected end") {
			return fmt.Sprintf("the JSON ends early, after %d bytes (truncated? an object must end with })", len(text))
		}
		line, col := lineCol(text, syntax.Offset)
		return fmt.Sprintf("invalid JSON at byte %d (line %d, column %d): %v", syntax.Offset, line, col, err)
	case err != nil:
		return fmt.Sprintf("invalid JSON: %v", err)
	}
	switch v.(type) {
	case []any:
		return "the body is a JSON array; the operation takes one JSON object of fields ({...}), not a list"
	case map[string]any:
		return "" // an object: objectFields says which member is wrong
	case string:
		return "the body is a JSON string; the operation takes one JSON object of fields ({...})"
	case nil:
		return "the body is JSON null; the operation takes one JSON object of fields ({...})"
	}
	return "the body is a bare JSON value; the operation takes one JSON object of fields ({...})"
}

// lineCol turns a byte offset of a syntax error (just past the bad byte)
// into a line and column, both from 1.
func lineCol(text string, offset int64) (line, col int) {
	if offset > 0 {
		offset--
	}
	before := text[:min(int(offset), len(text))]
	line = strings.Count(before, "\n") + 1
	return line, len(before) - strings.LastIndexByte(before, '\n')
}

// lenientTypeNote notes, for the log of a request that was answered
// anyway, that its JSON body came with a Content-Type that does not say
// JSON: the gateway reads it (so the sandbox does), but a stricter proxy
// in front of a real deployment may not.
func lenientTypeNote(w http.ResponseWriter, mt string) {
	if mt == "application/json" || strings.HasSuffix(mt, "+json") {
		return
	}
	label := "no Content-Type"
	if mt != "" {
		label = "Content-Type " + mt
	}
	note(w, fmt.Sprintf("the JSON body came with %s, read as JSON anyway; send Content-Type: application/json", label))
}

// note records a remark on a request that does not explain a refusal (its
// why is kept for that).
func note(w http.ResponseWriter, text string) {
	if rec := recordOf(w); rec != nil && rec.note == "" {
		rec.note = text
	}
}

// probeMethods are the methods tried to tell a wrong method from an
// unknown path.
var probeMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// notFound answers a request no route serves, as the gateway's framework
// does: 404 for an unknown path, 405 with an Allow header for a path
// served with other methods; the log says which.
func (g *Gateway) notFound(w http.ResponseWriter, r *http.Request) {
	allow := g.allowedMethods(r)
	if len(allow) == 0 {
		explain(w, explanation{why: fmt.Sprintf("unknown path %s: the sandbox serves the gateway's API under %s (see %s%s for its paths)", r.URL.Path, Base, Base, OpenAPIPath)})
		writeJSON(w, http.StatusNotFound, map[string]any{"message": "Not Found"})
		return
	}
	w.Header().Set("Allow", strings.Join(allow, ", "))
	explain(w, explanation{why: fmt.Sprintf("method not allowed: %s %s; this path takes %s", r.Method, r.URL.Path, strings.Join(allow, ", "))})
	writeJSON(w, http.StatusMethodNotAllowed, map[string]any{"message": fmt.Sprintf("The %s method is not supported for this route. Supported methods: %s.",
		r.Method, strings.Join(allow, ", "))})
}

// allowedMethods lists the methods a route serves r's path with (none for
// an unknown path).
func (g *Gateway) allowedMethods(r *http.Request) []string {
	var allow []string
	for _, m := range probeMethods {
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := g.mux.Handler(probe); pattern != "" && pattern != "/" {
			allow = append(allow, m)
		}
	}
	return allow
}

// writeAdminError answers an admin request that failed; the log's why is
// the answer's error, which already says what to do.
func writeAdminError(w http.ResponseWriter, status int, msg string) {
	explain(w, explanation{why: msg})
	writeJSON(w, status, adminError{msg})
}
