package sandboxcmd

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/sandbox"
	"github.com/paycli/paycli/internal/webhook"
)

// parseWebhookFlags reads the --webhook KEY=URL registrations: a key once
// each, non-empty and without blanks; an absolute http(s) URL on this
// machine unless public.
func parseWebhookFlags(values []string, encoding string, public bool) (map[string]sandbox.WebhookEndpoint, error) {
	if err := cmdutil.OneOf("webhook-encoding", encoding, string(webhook.Form), string(webhook.JSON)); err != nil {
		return nil, err
	}
	out := map[string]sandbox.WebhookEndpoint{}
	for _, v := range values {
		key, rawURL, ok := strings.Cut(v, "=")
		key = strings.TrimSpace(key)
		if !ok || key == "" || rawURL == "" {
			return nil, cmdutil.UsageErrorf("invalid --webhook %q: want KEY=URL, e.g. sales=http://127.0.0.1:9000/hooks", v)
		}
		if strings.ContainsAny(key, " \t\r\n") || len(key) > 100 {
			return nil, cmdutil.UsageErrorf("invalid --webhook key %q: want at most 100 characters without blanks", key)
		}
		if _, dup := out[key]; dup {
			return nil, cmdutil.UsageErrorf("--webhook key %q is registered twice: give each key one URL", key)
		}
		if err := sandbox.CheckWebhookURL(rawURL, public); err != nil {
			if !public && sandbox.CheckWebhookURL(rawURL, true) == nil {
				return nil, cmdutil.UsageHint(fmt.Errorf("invalid --webhook URL for key %q: %v", key, err),
					"The sandbox sends webhooks to this machine only; add --public to send them elsewhere.")
			}
			return nil, cmdutil.UsageErrorf("invalid --webhook URL for key %q: %v", key, err)
		}
		out[key] = sandbox.WebhookEndpoint{URL: rawURL, Encoding: webhook.Encoding(encoding)}
	}
	return out, nil
}

// lineLogger writes whole lines to w, one at a time, for messages logged
// from several goroutines.
func lineLogger(w io.Writer) func(format string, args ...any) {
	var mu sync.Mutex
	return func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(w, format+"\n", args...)
	}
}
