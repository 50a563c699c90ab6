package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// AdminError is the admin surface's refusal of a request: its HTTP status,
// message and the field at fault.
type AdminError struct {
	Status int
	Msg    string
	Field  string
}

func (e *AdminError) Error() string { return e.Msg }

// CallAdmin sends an admin request (in JSON-encoded, sent as it is when
// a []byte, none when nil) to the
// sandbox at baseURL and decodes a 2xx answer into out. A refusal is an
// *AdminError; anything else is the transport's error.
func CallAdmin(ctx context.Context, baseURL, method, path string, in, out any) error {
	var body io.Reader = http.NoBody
	if raw, ok := in.([]byte); ok {
		body = bytes.NewReader(raw)
	} else if in != nil {
		data, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(data)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimSuffix(baseURL, "/")+path, body)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	// The admin surface is a sandbox's own: bypass proxies from the
	// environment, as Probe does.
	client := &http.Client{Transport: &http.Transport{Proxy: nil}}
	defer client.CloseIdleConnections()
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	// The largest answer is the list of webhook deliveries, each with its
	// attempts and body.
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		var refusal adminFieldError
		if json.Unmarshal(data, &refusal) != nil || refusal.Error == "" {
			return &AdminError{Status: resp.StatusCode, Msg: fmt.Sprintf("the sandbox answered HTTP %d to %s %s", resp.StatusCode, method, path)}
		}
		return &AdminError{Status: resp.StatusCode, Msg: refusal.Error, Field: refusal.Field}
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("the sandbox's answer to %s %s is not JSON: %w", method, path, err)
	}
	return nil
}

// NormalizeURL checks a sandbox base URL given by a user (--sandbox-url)
// and returns it ending in Base: "http://host:port" gets Base added.
func NormalizeURL(raw string) (string, error) {
	u := strings.TrimRight(strings.TrimSpace(raw), "/")
	if err := CheckWebhookURL(u, true); err != nil {
		return "", err
	}
	rest := u[strings.Index(u, "//")+2:]
	if i := strings.Index(rest, "/"); i < 0 {
		return u + Base, nil
	} else if path := rest[i:]; path != Base {
		return "", fmt.Errorf("%q: the path must be %s (or nothing)", raw, Base)
	}
	return u, nil
}
