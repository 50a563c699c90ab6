package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// RequestDump is a request as `--dry-run` shows it: exactly what would be
// sent, with the secrets docs/protocol.md lists under Safety rules
// redacted.
type RequestDump struct {
	Method string
	URL    string
	// Header lists "Name: value" lines in a stable order, redacted.
	Header []string
	// Body is the JSON body, indented, redacted.
	Body string
}

// String renders the dump like an HTTP request: the request line, the
// headers, a blank line and the body.
func (d RequestDump) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n", d.Method, d.URL)
	for _, h := range d.Header {
		b.WriteString(h + "\n")
	}
	b.WriteString("\n" + d.Body + "\n")
	return b.String()
}

// dryRunToken stands in for the bearer token, which a dry run does not
// fetch (fetching it is a request); it is shown redacted like a real one.
const dryRunToken = "dry-run"

// DryRun returns the request the client would send for call, signed and
// then redacted, without sending anything (not even the token call): what
// `--dry-run` prints for every command.
func (c *Client) DryRun(call Call) (RequestDump, error) {
	ep, payload, err := call.encode(c)
	if err != nil {
		return RequestDump{}, err
	}
	token := ""
	if ep.auth {
		token = dryRunToken
	}
	req, err := c.newRequest(context.Background(), ep, token, payload)
	if err != nil {
		return RequestDump{}, err
	}
	d := RequestDump{Method: req.Method, URL: redactURL(req.URL)}
	for _, name := range headerNames(req.Header) {
		d.Header = append(d.Header, name+": "+redactHeader(name, req.Header[name]))
	}
	redacted := redactBody(payload)
	var indented bytes.Buffer
	if err := json.Indent(&indented, []byte(redacted), "", "  "); err == nil {
		redacted = indented.String()
	}
	d.Body = redacted
	return d, nil
}
