package gateway

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/paycli/paycli/internal/atomicfile"
	"github.com/paycli/paycli/internal/money"
)

// BearerToken returns a token for the authorised calls: the one in memory
// or in the cache while it is reusable, else a new one from the gateway
// (which is then cached). refresh skips the reuse. cached reports whether
// the token was reused rather than fetched.
func (c *Client) BearerToken(ctx context.Context, refresh bool) (tok *Token, cached bool, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !refresh {
		if tok := c.reusableToken(); tok != nil {
			return tok, true, nil
		}
	}
	return c.fetchToken(ctx)
}

// refreshAfter replaces a token the gateway refused, unless another call
// already did.
func (c *Client) refreshAfter(ctx context.Context, refused *Token) (*Token, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.token != nil && c.token.Value != refused.Value {
		return c.token, true, nil
	}
	return c.fetchToken(ctx)
}

// reusableToken returns the token in memory, else the cached one, while it
// is reusable. A token whose expiry could not be read is reused in memory
// only: the process that got it has just been told it is good.
func (c *Client) reusableToken() *Token {
	now := c.now()
	if c.token != nil && (c.token.ExpiresAt.IsZero() || c.token.Reusable(now)) {
		return c.token
	}
	if c.cache == nil {
		return nil
	}
	tok, err := c.cache.Load(c.cacheKey())
	if err != nil {
		c.debug("token cache unreadable; fetching a new token", "error", err)
		return nil
	}
	if !tok.Reusable(now) {
		return nil
	}
	c.token = tok
	return tok
}

// fetchToken gets a new token and caches it. A cache that cannot be written
// costs a token call next time, nothing more.
func (c *Client) fetchToken(ctx context.Context) (*Token, bool, error) {
	tok, err := c.Token(ctx)
	if err != nil {
		return nil, false, err
	}
	c.token = tok
	if c.cache != nil && !tok.ExpiresAt.IsZero() {
		if err := c.cache.Store(c.cacheKey(), tok); err != nil {
			c.debug("token cache not written", "error", err)
		}
	}
	return tok, false, nil
}

func (c *Client) cacheKey() CacheKey {
	return CacheKey{BaseURL: c.baseURL.String(), AppID: c.creds.AppID}
}

func (c *Client) debug(msg string, args ...any) {
	if c.logger != nil {
		c.logger.Debug(msg, args...)
	}
}

// newToken reads a token response received at now.
func newToken(d tokenData, now time.Time) *Token {
	t := &Token{Value: d.Token, Is3D: int(d.Is3D), RawExpiresAt: d.ExpiresAt}
	exp := readExpiresAt(d.ExpiresAt, now)
	if jwtExp := jwtExpiry(d.Token); !jwtExp.IsZero() && (exp.IsZero() || jwtExp.Before(exp)) {
		exp = jwtExp
	}
	t.ExpiresAt = exp.UTC()
	return t
}

// readExpiresAt reads the token response's expires_at, received at now.
// With a zone (RFC 3339) it is exact. Without one ("2026-11-22 18:04:05")
// the gateway wrote either its local time (UTC+3) or UTC; reading it as
// UTC+3 gives the earlier instant, so that reading is used unless it is
// already past — a token just issued cannot have expired, so then the
// gateway wrote UTC. When neither reading is in the future the expiry is
// unknown (zero).
func readExpiresAt(s string, now time.Time) time.Time {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t
	}
	for _, layout := range []string{"2006-01-02 15:04:05", "2006-01-02T15:04:05", "2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999"} {
		for _, zone := range []*time.Location{money.GatewayZone(), time.UTC} {
			t, err := time.ParseInLocation(layout, s, zone)
			if err != nil {
				break
			}
			if t.After(now) {
				return t
			}
		}
	}
	return time.Time{}
}

// jwtExpiry reads the exp claim of a JWT without verifying it (the client
// cannot: the key is the gateway's); zero when there is none.
func jwtExpiry(token string) time.Time {
	claims := jwt.MapClaims{}
	if _, _, err := jwt.NewParser().ParseUnverified(token, claims); err != nil {
		return time.Time{}
	}
	exp, err := claims.GetExpirationTime()
	if err != nil || exp == nil {
		return time.Time{}
	}
	return exp.Time
}

// CacheKey names the tokens of one application on one gateway.
type CacheKey struct {
	BaseURL string
	AppID   string
}

// TokenCache keeps tokens between processes.
type TokenCache interface {
	// Load returns the cached token for key, or (nil, nil) when there is none.
	Load(key CacheKey) (*Token, error)
	// Store saves tok for key, replacing any other.
	Store(key CacheKey, tok *Token) error
}

// FileTokenCache keeps one profile's tokens as JSON files in a folder, one
// per base URL and app_id. Files are written to a temporary file and
// renamed into place, with mode 0600 in a 0700 folder, so two processes
// running at once never see half a file: at worst both fetch a token and
// the last rename wins, leaving a valid token either way.
type FileTokenCache struct {
	dir     string
	profile string
	gateway string
	now     func() time.Time
}

// NewFileTokenCache returns the cache of profile's tokens in dir
// (<user cache dir>/paycli in paycli). gatewayName, when set, names the
// gateway in place of the base URL of the keys, so that one gateway
// reachable at changing addresses (the in-process sandbox, on a new port
// each run) keeps one cache file. now is the clock that decides which
// files Store sweeps away; it is required.
func NewFileTokenCache(dir, profile, gatewayName string, now func() time.Time) *FileTokenCache {
	if now == nil {
		panic("gateway: NewFileTokenCache needs a clock")
	}
	return &FileTokenCache{dir: dir, profile: profile, gateway: gatewayName, now: now}
}

// Dir is the folder the cache files are in.
func (c *FileTokenCache) Dir() string { return c.dir }

// staleAfter is how long after its expiry a cached token's file is kept:
// long enough that nothing paycli still runs wants it, short enough that
// files of gateways no longer used do not pile up.
const staleAfter = 24 * time.Hour

// gatewayOf is the gateway name the cache files key on.
func (c *FileTokenCache) gatewayOf(key CacheKey) string {
	if c.gateway != "" {
		return c.gateway
	}
	return key.BaseURL
}

// cacheFile is the cache's file format.
type cacheFile struct {
	Version      int       `json:"version"`
	Profile      string    `json:"profile"`
	BaseURL      string    `json:"base_url"`
	AppIDSHA256  string    `json:"app_id_sha256"`
	Token        string    `json:"token"`
	Is3D         int       `json:"is_3d"`
	ExpiresAt    time.Time `json:"expires_at"`
	RawExpiresAt string    `json:"gateway_expires_at,omitempty"`
}

const cacheVersion = 1

func (c *FileTokenCache) path(key CacheKey) string {
	sum := sha256.Sum256([]byte(c.profile + "\x00" + c.gatewayOf(key) + "\x00" + key.AppID))
	return filepath.Join(c.dir, "token-"+hex.EncodeToString(sum[:12])+".json")
}

func appIDHash(appID string) string {
	sum := sha256.Sum256([]byte(appID))
	return hex.EncodeToString(sum[:])
}

// Load reads the token for key. A missing file is no token; a file that is
// not one of ours, or is for another key, is an error (the caller fetches a
// new token and overwrites it).
func (c *FileTokenCache) Load(key CacheKey) (*Token, error) {
	data, err := os.ReadFile(c.path(key))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var f cacheFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("token cache %s: %w", c.path(key), err)
	}
	if f.Version != cacheVersion || f.Profile != c.profile || f.BaseURL != c.gatewayOf(key) || f.AppIDSHA256 != appIDHash(key.AppID) {
		return nil, fmt.Errorf("token cache %s: written for another profile, gateway or version", c.path(key))
	}
	return &Token{Value: f.Token, Is3D: f.Is3D, ExpiresAt: f.ExpiresAt, RawExpiresAt: f.RawExpiresAt}, nil
}

// Store writes the token for key atomically, then deletes the files of
// tokens (of any profile) that expired more than a day ago.
func (c *FileTokenCache) Store(key CacheKey, tok *Token) error {
	defer c.sweep()
	data, err := json.MarshalIndent(cacheFile{
		Version: cacheVersion, Profile: c.profile, BaseURL: c.gatewayOf(key), AppIDSHA256: appIDHash(key.AppID),
		Token: tok.Value, Is3D: tok.Is3D, ExpiresAt: tok.ExpiresAt, RawExpiresAt: tok.RawExpiresAt,
	}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(c.dir, 0o700); err != nil {
		return err
	}
	_ = os.Chmod(c.dir, 0o700) // tighten a folder made by something else
	return atomicfile.WriteFile(c.path(key), append(data, '\n'))
}

// Clear deletes this profile's cached tokens, for every gateway, and says
// how many there were.
func (c *FileTokenCache) Clear() (int, error) {
	paths, err := filepath.Glob(filepath.Join(c.dir, "token-*.json"))
	if err != nil {
		return 0, err
	}
	n := 0
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		var f cacheFile
		if json.Unmarshal(data, &f) != nil || f.Profile != c.profile {
			continue
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return n, err
		}
		n++
	}
	return n, nil
}

// sweep deletes the cache files whose token expired more than staleAfter
// ago. It is best effort: a file it cannot read or remove stays.
func (c *FileTokenCache) sweep() {
	cutoff := c.now().Add(-staleAfter)
	paths, _ := filepath.Glob(filepath.Join(c.dir, "token-*.json"))
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		var f cacheFile
		if json.Unmarshal(data, &f) != nil || f.Version != cacheVersion || f.ExpiresAt.IsZero() || !f.ExpiresAt.Before(cutoff) {
			continue
		}
		_ = os.Remove(p)
	}
}
