package sandbox

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"
)

// OpenAPIPath answers GET with the OpenAPI 3 description of the emulated
// API, at the root and under the base URL. It is made from the routes the
// gateway serves (Gateway.Routes) and the field tables its handlers check
// (operations.go), so it says what the sandbox does; `go run ./cmd/gendocs`
// writes it to docs/sandbox-openapi.json.
const OpenAPIPath = "/__sandbox/openapi.json"

// routeOpenAPI serves the description.
func (g *Gateway) routeOpenAPI() {
	serve := func(w http.ResponseWriter, r *http.Request) {
		doc, err := g.OpenAPI()
		if err != nil {
			writeInternal(w, err)
			return
		}
		writeJSONBody(w, http.StatusOK, doc)
	}
	g.mux.HandleFunc("GET "+OpenAPIPath, serve)
	g.mux.HandleFunc("GET "+Base+OpenAPIPath, serve)
}

// OpenAPI returns the OpenAPI 3 description of what g serves, as indented
// JSON; the same routes give the same bytes.
func (g *Gateway) OpenAPI() ([]byte, error) { return openAPIDocument(g.Routes()) }

// OpenAPIDocument returns the description of the sandbox's API without a
// running sandbox (for cmd/gendocs): it builds a gateway over a store in
// a temporary folder, removed before it returns.
func OpenAPIDocument() ([]byte, error) {
	dir, err := os.MkdirTemp("", "paycli-openapi-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	var epoch time.Time // no clock is needed to list routes
	store, err := OpenStore(dir, time.Second, epoch)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	g, err := New(Options{Store: store, Now: func() time.Time { return epoch }})
	if err != nil {
		return nil, err
	}
	return g.OpenAPI()
}

// htmlAnswers are the operations answered with a web page (to a browser),
// or with JSON for a client that sends Accept: application/json (a 3D
// payment's refusal is a page to every client).
var htmlAnswers = []*operation{opPaySmart3D, opPayByCardToken, opChallenge, opLinkPage}

// otherRoute describes a route outside the operation table ("" for none).
func otherRoute(path string) string {
	switch path {
	case HealthPath:
		return "Readiness: {\"status\": \"ok\"} while the sandbox serves (not part of the gateway's API)"
	case OpenAPIPath, Base + OpenAPIPath:
		return "This description (not part of the gateway's API)"
	}
	return ""
}

func openAPIDocument(routes []string) ([]byte, error) {
	paths := map[string]map[string]any{}
	for _, route := range routes {
		method, path, ok := strings.Cut(route, " ")
		if !ok {
			method, path = "GET", route
		}
		if paths[path] == nil {
			paths[path] = map[string]any{}
		}
		paths[path][strings.ToLower(method)] = openAPIOperation(method, path)
	}
	faults := []map[string]string{}
	for _, m := range MagicFaults {
		faults = append(faults, map[string]string{"name": m.Name, "amount": m.Amount, "card": m.Card, "what": m.What})
	}
	doc := map[string]any{
		"openapi": "3.0.3",
		"info": map[string]any{
			"title":   "paycli sandbox: the emulated ccpayment merchant API",
			"version": "1",
			"description": "What `paycli sandbox serve` answers, made from the routes it serves and the request fields its handlers check " +
				"(docs/sandbox.md). Every answer has an X-Request-Id header. Requests take JSON, or form fields; application " +
				"refusals are HTTP 200 with a status_code other than 100, as the gateway answers them, and `paycli sandbox logs` says why.",
		},
		"servers": []any{map[string]any{"url": "http://127.0.0.1:8787", "description": "the default address of paycli sandbox serve (--addr changes it)"}},
		"paths":   paths,
		"components": map[string]any{
			"securitySchemes": map[string]any{
				"bearer": map[string]any{"type": "http", "scheme": "bearer", "bearerFormat": "JWT",
					"description": "POST /ccpayment/api/token's token; sent with or without the Bearer prefix"},
			},
			"schemas": map[string]any{
				"StatusBody": map[string]any{"type": "object", "required": []string{"status_code", "status_description"},
					"properties": map[string]any{
						"status_code":        map[string]any{"type": "integer", "description": "100 success; the gateway's codes otherwise (docs/protocol.md)"},
						"status_description": map[string]any{"type": "string"},
						"data":               map[string]any{"description": "the operation's result"},
					}},
			},
			"headers": map[string]any{
				"RequestID": map[string]any{"description": "the request's id, as `paycli sandbox logs --request-id` finds it: the client's own X-Request-Id when it sent a sane one",
					"schema": map[string]any{"type": "string"}},
			},
		},
		"x-paycli-fault-values": faults,
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// openAPIOperation describes one route.
func openAPIOperation(method, path string) map[string]any {
	op := operationAt(path)
	id := strings.ToLower(method) + strings.NewReplacer("/", "_", "{", "", "}", "", ".", "_").Replace(path)
	headers := map[string]any{"X-Request-Id": map[string]any{"$ref": "#/components/headers/RequestID"}}
	ok := map[string]any{"description": "the answer (an application refusal too: see status_code)", "headers": headers,
		"content": map[string]any{"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/StatusBody"}}}}
	responses := map[string]any{
		"200":     ok,
		"default": map[string]any{"description": "an HTTP error (401 without a valid bearer token, 404, 405, 413, a fault)", "headers": headers},
	}
	out := map[string]any{"operationId": id, "responses": responses}
	if op == nil {
		summary := otherRoute(path)
		if summary == "" {
			summary = "Sandbox administration (not part of the gateway's API)"
		}
		out["summary"] = summary
		ok["content"] = map[string]any{"application/json": map[string]any{"schema": map[string]any{"type": "object"}}}
		out["security"] = []any{}
		return out
	}
	out["summary"] = op.summary
	if op.auth {
		out["security"] = []any{map[string]any{"bearer": []string{}}}
	} else {
		out["security"] = []any{}
	}
	if slices.Contains(htmlAnswers, op) {
		ok["content"].(map[string]any)["text/html"] = map[string]any{"schema": map[string]any{"type": "string"}}
	}
	var params []any
	if strings.Contains(path, "{id}") {
		params = append(params, map[string]any{"name": "id", "in": "path", "required": true, "schema": map[string]any{"type": "string"}})
	}
	names := concat(op.required, op.optional)
	switch {
	case len(names) == 0:
	case method == http.MethodGet:
		for _, name := range names {
			params = append(params, map[string]any{"name": name, "in": "query", "required": slices.Contains(op.required, name), "schema": fieldSchema(name)})
		}
	default:
		props := map[string]any{}
		for _, name := range names {
			props[name] = fieldSchema(name)
		}
		schema := map[string]any{"type": "object", "properties": props}
		if len(op.required) > 0 {
			schema["required"] = slices.Clone(op.required)
		}
		out["requestBody"] = map[string]any{"required": len(op.required) > 0, "content": map[string]any{
			"application/json":                  map[string]any{"schema": schema},
			"application/x-www-form-urlencoded": map[string]any{"schema": schema},
		}}
	}
	if len(params) > 0 {
		out["parameters"] = params
	}
	return out
}

// fieldSchema is a field's schema, from fieldSpecs.
func fieldSchema(name string) map[string]any {
	spec := fieldSpecs()[name]
	s := map[string]any{"type": "string"}
	switch spec.typ {
	case "array":
		s = map[string]any{"oneOf": []any{
			map[string]any{"type": "array", "items": map[string]any{"type": "object"}},
			map[string]any{"type": "string", "description": "the list as a JSON string"},
		}}
	case "object":
		props := map[string]any{}
		for _, f := range concat(linkInvoiceFields, linkInvoiceOptional) {
			props[f] = fieldSchema(f)
		}
		s = map[string]any{"oneOf": []any{
			map[string]any{"type": "object", "required": slices.Clone(linkInvoiceFields), "properties": props},
			map[string]any{"type": "string", "description": "the object as a JSON string"},
		}}
	}
	if spec.pattern != "" {
		s["pattern"] = spec.pattern
	}
	if spec.format != "" {
		s["format"] = spec.format
	}
	if len(spec.enum) > 0 {
		s["enum"] = slices.Clone(spec.enum)
	}
	if spec.number {
		s = map[string]any{"anyOf": []any{s, map[string]any{"type": "number"}}}
	}
	if spec.desc != "" {
		s["description"] = spec.desc
	}
	return s
}
