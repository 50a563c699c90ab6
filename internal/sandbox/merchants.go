package sandbox

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/paycli/paycli/internal/atomicfile"
	"github.com/paycli/paycli/internal/webhook"
)

// One server, many merchants: the default merchant (the published
// credentials) keeps its state in the state folder itself; each merchant
// created over HTTP (POST MerchantsPath) has fresh credentials and a store
// of its own under merchants/<app_id>/, so that its sales, saved cards,
// links and webhooks are out of every other merchant's sight. The list of
// created merchants is MerchantsFile, so they outlive a restart.
const (
	// MerchantsFile, in the state folder, lists the created merchants and
	// their credentials (0600).
	MerchantsFile = "merchants.json"
	merchantsDir  = "merchants"
	// DefaultMerchant names the default merchant where an admin request
	// takes a merchant (its app_id names it too).
	DefaultMerchant = "default"
	// maxMerchants bounds the merchants of one server: each holds an open
	// file.
	maxMerchants = 4096
)

// Merchant is a merchant's credentials at the sandbox and the web hook
// keys registered for it on top of the server's (--webhook).
type Merchant struct {
	AppID       string            `json:"app_id"`
	AppSecret   string            `json:"app_secret"`
	MerchantKey string            `json:"merchant_key"`
	Webhooks    map[string]string `json:"webhooks,omitempty"`
}

// Credentials returns m's credentials.
func (m Merchant) Credentials() Credentials {
	return Credentials{AppID: m.AppID, AppSecret: m.AppSecret, MerchantKey: m.MerchantKey}
}

// NewMerchantCredentials makes fresh credentials of the published ones'
// shapes: 32 hex digits each for app_id and app_secret, a bcrypt-looking
// merchant_key.
func NewMerchantCredentials() (Credentials, error) {
	var b [48]byte
	if _, err := rand.Read(b[:]); err != nil {
		return Credentials{}, err
	}
	const alphabet = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	key := make([]byte, 0, 53)
	var k [53]byte
	if _, err := rand.Read(k[:]); err != nil {
		return Credentials{}, err
	}
	for _, c := range k {
		key = append(key, alphabet[int(c)%len(alphabet)])
	}
	return Credentials{
		AppID:       hex.EncodeToString(b[:16]),
		AppSecret:   hex.EncodeToString(b[16:32]),
		MerchantKey: "$2y$10$" + string(key),
	}, nil
}

// tenant is one merchant served: its gateway over its own store.
type tenant struct {
	Merchant
	store   *Store
	gateway *Gateway
}

// merchants routes each request to its merchant's gateway and serves the
// admin surface (admin.go).
type merchants struct {
	dir      string
	template Options // the default gateway's options, for new merchants
	public   bool
	def      *tenant
	admin    *http.ServeMux

	mu      sync.RWMutex
	byAppID map[string]*tenant
	byKey   map[string]*tenant
	created []*tenant
	// createMu serializes creations and MerchantsFile's writes.
	createMu sync.Mutex
}

func newMerchants(dir string, def *tenant, template Options, public bool) *merchants {
	m := &merchants{dir: dir, template: template, public: public, def: def,
		byAppID: map[string]*tenant{}, byKey: map[string]*tenant{}, admin: http.NewServeMux()}
	m.routeAdmin()
	return m
}

// load opens the merchants recorded in MerchantsFile.
func (m *merchants) load() error {
	data, err := os.ReadFile(filepath.Join(m.dir, MerchantsFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var list []Merchant
	if err := json.Unmarshal(data, &list); err != nil {
		return fmt.Errorf("sandbox state: %s: %w", MerchantsFile, err)
	}
	for _, mc := range list {
		t, err := m.open(mc)
		if err != nil {
			return err
		}
		m.add(t)
	}
	return nil
}

// open opens a merchant's store and builds its gateway; its deliveries
// are started.
func (m *merchants) open(mc Merchant) (*tenant, error) {
	if !isHex32(mc.AppID) {
		return nil, fmt.Errorf("sandbox state: %s: invalid app_id %q", MerchantsFile, clipAdminText(mc.AppID))
	}
	// A merchant's store is this server's alone: no wait for its lock. It
	// is as durable as the default merchant's.
	store, err := openStore(filepath.Join(m.dir, merchantsDir, mc.AppID), 0, m.template.Now(), m.def.store.durable())
	if err != nil {
		return nil, err
	}
	opts := m.template
	opts.Store = store
	opts.Credentials = mc.Credentials()
	opts.Webhooks.Endpoints = mergeEndpoints(m.template.Webhooks.Endpoints, mc.Webhooks)
	g, err := New(opts)
	if err != nil {
		store.Close()
		return nil, err
	}
	g.deliveries.Start()
	return &tenant{Merchant: mc, store: store, gateway: g}, nil
}

func mergeEndpoints(server map[string]WebhookEndpoint, own map[string]string) map[string]WebhookEndpoint {
	if len(own) == 0 {
		return server
	}
	out := make(map[string]WebhookEndpoint, len(server)+len(own))
	for k, v := range server {
		out[k] = v
	}
	for k, u := range own {
		out[k] = WebhookEndpoint{URL: u, Encoding: webhook.Form}
	}
	return out
}

func (m *merchants) add(t *tenant) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.byAppID[t.AppID] = t
	m.byKey[t.MerchantKey] = t
	m.created = append(m.created, t)
}

// all returns the default merchant, then the created ones in order.
func (m *merchants) all() []*tenant {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return append([]*tenant{m.def}, m.created...)
}

// lookup finds a merchant by app_id ("default" or the published app_id
// for the default merchant).
func (m *merchants) lookup(appID string) (*tenant, bool) {
	if appID == DefaultMerchant || appID == m.def.AppID {
		return m.def, true
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	t, ok := m.byAppID[appID]
	return t, ok
}

// create makes a merchant with fresh credentials (or mc's, for a scenario)
// and records it in MerchantsFile before it is served.
func (m *merchants) create(mc Merchant) (*tenant, error) {
	m.createMu.Lock()
	defer m.createMu.Unlock()
	if mc.AppID == "" {
		c, err := NewMerchantCredentials()
		if err != nil {
			return nil, err
		}
		mc.AppID, mc.AppSecret, mc.MerchantKey = c.AppID, c.AppSecret, c.MerchantKey
	}
	m.mu.RLock()
	n := len(m.created)
	m.mu.RUnlock()
	if n >= maxMerchants {
		return nil, fmt.Errorf("this sandbox already has %d merchants: reset it or start another", maxMerchants)
	}
	t, err := m.open(mc)
	if err != nil {
		return nil, err
	}
	list := make([]Merchant, 0, n+1)
	for _, c := range m.all()[1:] {
		list = append(list, c.Merchant)
	}
	list = append(list, mc)
	data, err := json.MarshalIndent(list, "", "  ")
	if err == nil {
		err = atomicfile.WriteFile(filepath.Join(m.dir, MerchantsFile), append(data, '\n'))
	}
	if err != nil {
		t.gateway.deliveries.Stop()
		t.store.Close()
		return nil, fmt.Errorf("record the new merchant: %w", err)
	}
	m.add(t)
	return t, nil
}

// close stops every created merchant's deliveries and closes its store.
func (m *merchants) close() error {
	var first error
	for _, t := range m.all()[1:] {
		t.gateway.deliveries.Stop()
		if err := t.store.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// ServeHTTP serves the admin surface, or hands the request to the
// gateway of the merchant it belongs to.
func (m *merchants) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h, pattern := m.admin.Handler(r); pattern != "" {
		h.ServeHTTP(w, r)
		return
	}
	t, err := m.tenantOf(r)
	if err != nil {
		writeJSON(w, http.StatusNotFound, adminFieldError{Error: err.Error(), Field: "merchant"})
		return
	}
	t.gateway.ServeHTTP(w, r)
}

// tenantOf finds the merchant a request belongs to: by the app_id its
// bearer token was issued to; without one, by the app_id or merchant_key
// of its body, the order of a 3D challenge or the id of a payment link.
// Anything else is the default merchant's, whose gateway explains what
// it refuses. The sandbox's webhook admin takes ?merchant=APP_ID.
func (m *merchants) tenantOf(r *http.Request) (*tenant, error) {
	if strings.HasPrefix(r.URL.Path, Base+WebhooksPath) {
		if id := r.URL.Query().Get("merchant"); id != "" {
			t, ok := m.lookup(id)
			if !ok {
				return nil, unknownMerchant(id)
			}
			return t, nil
		}
		return m.def, nil
	}
	m.mu.RLock()
	none := len(m.created) == 0
	m.mu.RUnlock()
	if none {
		return m.def, nil
	}
	if token := requestBearer(r); token != "" {
		var claims bearerClaims
		if _, _, err := jwt.NewParser().ParseUnverified(token, &claims); err == nil {
			if t, ok := m.lookup(claims.Subject); ok {
				return t, nil
			}
		}
		return m.def, nil
	}
	if id, ok := strings.CutPrefix(r.URL.Path, Base+LinkPath); ok {
		for _, t := range m.all() {
			if _, found, _ := t.store.InvoiceOfLink(id); found {
				return t, nil
			}
		}
		return m.def, nil
	}
	if r.Method != http.MethodPost {
		return m.def, nil
	}
	f := m.peekFields(r)
	if t, ok := m.lookup(f["app_id"]); ok && f["app_id"] != "" {
		return t, nil
	}
	if key := f["merchant_key"]; key != "" {
		m.mu.RLock()
		t, ok := m.byKey[key]
		m.mu.RUnlock()
		if ok {
			return t, nil
		}
	}
	if order := f["order_id"]; order != "" && r.URL.Path == Base+ChallengePath {
		for _, t := range m.all() {
			if _, found, _ := t.store.InvoiceOfOrder(order); found {
				return t, nil
			}
		}
	}
	return m.def, nil
}

// bearerOf is the request's bearer token, with or without "Bearer ".
func requestBearer(r *http.Request) string {
	token := strings.TrimSpace(r.Header.Get("Authorization"))
	if len(token) > 7 && strings.EqualFold(token[:7], "bearer ") {
		token = strings.TrimSpace(token[7:])
	}
	return token
}

// peekFields reads the body's top-level string fields (JSON object or
// form) and puts the body back for the gateway. A body over the limit is
// left for the gateway to refuse.
func (m *merchants) peekFields(r *http.Request) map[string]string {
	limit := m.template.MaxBodyBytes
	if limit <= 0 {
		limit = DefaultMaxBodyBytes
	}
	data, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(data), r.Body), r.Body}
	if err != nil || int64(len(data)) > limit {
		return nil
	}
	out := map[string]string{}
	trimmed := bytes.TrimSpace(data)
	if bytes.HasPrefix(trimmed, []byte("{")) {
		var raw map[string]any
		if json.Unmarshal(trimmed, &raw) == nil {
			for k, v := range raw {
				if s, ok := v.(string); ok {
					out[k] = strings.TrimSpace(s)
				}
			}
		}
		return out
	}
	if q, err := url.ParseQuery(string(data)); err == nil {
		for k, v := range q {
			out[k] = strings.TrimSpace(v[0])
		}
	}
	return out
}

func unknownMerchant(appID string) error {
	return fmt.Errorf("merchant: no merchant with app_id %q at this sandbox (POST %s%s creates one; %q is the default)",
		clipAdminText(appID), Base, MerchantsPath, DefaultMerchant)
}

func isHex32(s string) bool {
	if len(s) != 32 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

// MerchantStateDir is the state folder of a created merchant of the
// sandbox over dir; an error names an app_id the sandbox never created.
func MerchantStateDir(dir, appID string) (string, error) {
	sub := filepath.Join(dir, merchantsDir, appID)
	if !isHex32(appID) {
		return "", fmt.Errorf("%q is not a merchant's app_id (32 hex digits) nor %q", clipAdminText(appID), DefaultMerchant)
	}
	if _, err := os.Stat(filepath.Join(sub, DBFile)); err != nil {
		return "", fmt.Errorf("no merchant with app_id %q in %s", appID, dir)
	}
	return sub, nil
}

// ResetMerchants empties the store of every merchant created in the
// sandbox over dir, while no server holds it.
func ResetMerchants(dir string, now time.Time) error {
	entries, err := os.ReadDir(filepath.Join(dir, merchantsDir))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !e.IsDir() || !isHex32(e.Name()) {
			continue
		}
		s, err := OpenStore(filepath.Join(dir, merchantsDir, e.Name()), 0, now)
		if err != nil {
			return err
		}
		err = s.Reset()
		if cerr := s.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}
