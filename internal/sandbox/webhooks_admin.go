package sandbox

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/paycli/paycli/internal/webhook"
)

// The sandbox's own webhook administration, under the base URL, for
// `paycli sandbox webhooks` while serve holds the store (it is not part of
// the gateway's API, and like the 3D challenge needs no token: it holds no
// secret and serve listens on loopback unless --public).
const (
	// WebhooksPath answers GET with {"deliveries": [Delivery...]}.
	WebhooksPath = "/__sandbox/webhooks"
	// ResendPath takes POST {"id": N} (JSON or form) and makes that
	// delivery pending and due now; it answers {"delivery": Delivery}.
	ResendPath = "/__sandbox/webhooks/resend"
)

// ResendRequest is the request of ResendPath.
type ResendRequest struct {
	ID uint64 `json:"id"`
}

// DeliveryList is the answer of WebhooksPath.
type DeliveryList struct {
	Deliveries []Delivery `json:"deliveries"`
}

// ResendAnswer is the answer of ResendPath.
type ResendAnswer struct {
	Delivery Delivery `json:"delivery"`
}

// adminError is the answer of an admin request that failed, with an HTTP
// status other than 200.
type adminError struct {
	Error string `json:"error"`
}

func (g *Gateway) routeWebhooks() {
	g.mux.HandleFunc("GET "+Base+WebhooksPath, g.listDeliveries)
	g.mux.HandleFunc("POST "+Base+ResendPath, g.resendDelivery)
}

func (g *Gateway) listDeliveries(w http.ResponseWriter, r *http.Request) {
	all, err := g.opts.Store.Deliveries()
	if err != nil {
		writeAdminError(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, DeliveryList{Deliveries: all})
}

func (g *Gateway) resendDelivery(w http.ResponseWriter, r *http.Request) {
	id, status, err := readResend(r.Header.Get("Content-Type"), http.MaxBytesReader(w, r.Body, maxAdminBody))
	if err != nil {
		writeAdminError(w, status, err.Error())
		return
	}
	d, err := g.opts.Store.ResendDelivery(id, g.opts.Now().UTC())
	switch {
	case errors.Is(err, ErrNoDelivery):
		writeAdminError(w, http.StatusNotFound, fmt.Sprintf("%v: %d", err, id))
		return
	case err != nil:
		writeAdminError(w, http.StatusInternalServerError, err.Error())
		return
	}
	g.deliveries.kick()
	writeJSON(w, http.StatusOK, ResendAnswer{Delivery: d})
}

// maxAdminBody bounds an admin request's body: {"id": N} is a few bytes.
const maxAdminBody = 4 << 10

// readResend reads a resend request's body, {"id": N} or id=N (read as
// webhook bodies are: form or JSON, a field once), and returns the id, or
// the HTTP status and error to answer.
func readResend(contentType string, body io.Reader) (uint64, int, error) {
	data, err := io.ReadAll(body)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return 0, http.StatusRequestEntityTooLarge, fmt.Errorf("the body is larger than %d bytes", maxAdminBody)
		}
		return 0, http.StatusBadRequest, errors.New("the body could not be read")
	}
	if t := strings.TrimSpace(string(data)); strings.HasPrefix(t, "{") {
		// curl -d labels a JSON body as a form: read it as JSON, as the
		// gateway's endpoints are read (readFields).
		contentType = "application/json"
	}
	b, err := webhook.Parse(contentType, data)
	if err != nil {
		return 0, http.StatusBadRequest, fmt.Errorf("want {\"id\": N} or id=N: %v", err)
	}
	v, _ := b.Get("id")
	id, err := ParseDeliveryID(v)
	if err != nil {
		return 0, http.StatusBadRequest, err
	}
	return id, 0, nil
}

// ParseDeliveryID reads a delivery id: a whole number from 1.
func ParseDeliveryID(s string) (uint64, error) {
	s = strings.TrimSpace(s)
	id, err := strconv.ParseUint(s, 10, 64)
	if err != nil || id == 0 {
		return 0, fmt.Errorf("invalid delivery id %q: want a whole number from 1, as 'paycli sandbox webhooks' lists them", clipAdminText(s))
	}
	return id, nil
}

// clipAdminText shortens outside text quoted in an answer.
func clipAdminText(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}
