package yarn

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-resty/resty/v2"
	"github.com/hashicorp/go-hclog"
)

// Config says how to reach and authenticate to YARN.
type Config struct {
	// RMAddresses are RM web addresses (several for RM HA), e.g. http://rm:8088.
	RMAddresses []string
	// JHSAddress is the JobHistory server web address.
	JHSAddress string
	// User is the simple-auth user (?user.name=).
	User string
	// Timeout bounds each call (default 10 s).
	Timeout time.Duration
	// MaxResponseBytes caps a response body (default 256 MiB).
	MaxResponseBytes int64
	// Retries for idempotent GETs (default 2; negative: none), with backoff.
	Retries int
	Logger  hclog.Logger
	// HTTPClient overrides the transport (tests).
	HTTPClient *http.Client
	// TLS and Kerberos: HTTPS with a CA bundle, SPNEGO (nil: simple auth).
	TLS      TLS
	Kerberos *Kerberos
}

// Client talks to one YARN cluster.
type Client struct {
	cfg    Config
	rc     *resty.Client
	mu     sync.Mutex
	active int // index of the RM that last answered
	// serverTime is the Date header of the last response (unix seconds):
	// the cluster's clock, which app and task times are relative to.
	serverTime atomic.Int64
	// placements reuses apps' containers per node between snapshots.
	placements placements
}

// ServerTime is the cluster's clock as of the last response (its HTTP Date
// header, to the second); false before any response carried one.
func (c *Client) ServerTime() (time.Time, bool) {
	s := c.serverTime.Load()
	if s == 0 {
		return time.Time{}, false
	}
	return time.Unix(s, 0).UTC(), true
}

// New builds a client; it does not contact the cluster.
func New(cfg Config) (*Client, error) {
	if len(cfg.RMAddresses) == 0 {
		return nil, errors.New("no ResourceManager address: give --rm or set HADOOP_CONF_DIR")
	}
	for i, a := range cfg.RMAddresses {
		u, err := url.Parse(a)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("ResourceManager address %q: want http(s)://host:port", a)
		}
		cfg.RMAddresses[i] = strings.TrimRight(a, "/")
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 10 * time.Second
	}
	if cfg.MaxResponseBytes == 0 {
		cfg.MaxResponseBytes = 256 << 20
	}
	switch {
	case cfg.Retries == 0:
		cfg.Retries = 2
	case cfg.Retries < 0: // no retries: one attempt
		cfg.Retries = 0
	}
	if cfg.Logger == nil {
		cfg.Logger = hclog.NewNullLogger()
	}
	hc := cfg.HTTPClient
	if hc == nil {
		var err error
		if hc, err = HTTPClientFor(cfg.TLS); err != nil {
			return nil, err
		}
	}
	rc := resty.NewWithClient(hc).SetTimeout(cfg.Timeout).SetDoNotParseResponse(true).
		SetHeader("Accept", "application/json").SetRedirectPolicy(resty.FlexibleRedirectPolicy(5))
	if cfg.Kerberos != nil {
		kc, err := kerberosClient(*cfg.Kerberos)
		if err != nil {
			return nil, err
		}
		hook := spnegoHook(kc)
		rc.SetPreRequestHook(func(_ *resty.Client, r *http.Request) error { return hook(r) })
		// A standby RM redirects to the active one on another host; Go drops
		// Authorization across hosts, so the redirected request gets its own
		// SPNEGO token (for HTTP/<active host>).
		rc.SetRedirectPolicy(resty.FlexibleRedirectPolicy(5), resty.RedirectPolicyFunc(func(r *http.Request, _ []*http.Request) error {
			return hook(r)
		}))
	}
	if cfg.User != "" {
		rc.SetQueryParam("user.name", cfg.User)
	}
	return &Client{cfg: cfg, rc: rc}, nil
}

// ActiveRM is the RM address that answered last (RM HA).
func (c *Client) ActiveRM() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cfg.RMAddresses[c.active]
}

// rmGet GETs an RM path, trying the active RM first then the others (HA:
// a standby answers with an error page or a redirect), with retries and
// backoff, and decodes JSON into v.
func (c *Client) rmGet(ctx context.Context, path string, query url.Values, v any) error {
	c.mu.Lock()
	start := c.active
	c.mu.Unlock()
	var last error
	n := len(c.cfg.RMAddresses)
	for i := 0; i < n; i++ {
		idx := (start + i) % n
		base := c.cfg.RMAddresses[idx]
		err := c.getJSON(ctx, base+path, query, v)
		if err == nil {
			c.mu.Lock()
			c.active = idx
			c.mu.Unlock()
			return nil
		}
		last = err
		var re *RemoteError
		// A 3xx left unfollowed is a standby that cannot name the active RM
		// (307 with only a Refresh header): try the next RM.
		if errors.As(err, &re) && re.Status >= 400 && re.Status < 500 && !strings.Contains(strings.ToLower(re.Message), "standby") {
			return err // a real answer from an active RM
		}
	}
	return last
}

// getJSON GETs a URL with retries for transient failures.
func (c *Client) getJSON(ctx context.Context, u string, query url.Values, v any) error {
	var err error
	for attempt := 0; attempt <= c.cfg.Retries; attempt++ {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return fmt.Errorf("GET %s: %w", u, ctx.Err())
			case <-time.After(time.Duration(attempt*attempt) * 100 * time.Millisecond):
			}
		}
		err = c.do(ctx, http.MethodGet, u, query, nil, "", v)
		var re *RemoteError
		var bad badAnswer
		if err == nil || errors.As(err, &re) && re.Status < 500 || ctx.Err() != nil || errors.Is(err, ErrTooLarge) || errors.As(err, &bad) {
			return err // asking the same server again would get the same answer
		}
	}
	return err
}

// do sends one request and decodes a JSON answer into v (when non-nil), or
// returns the body as a *RemoteError for a non-2xx status.
func (c *Client) do(ctx context.Context, method, u string, query url.Values, body []byte, contentType string, v any) error {
	req := c.rc.R().SetContext(ctx)
	if query != nil {
		req.SetQueryParamsFromValues(query)
	}
	if body != nil {
		req.SetBody(body).SetHeader("Content-Type", contentType)
	}
	resp, err := req.Execute(method, u)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, u, err)
	}
	if d, err := http.ParseTime(resp.Header().Get("Date")); err == nil {
		c.serverTime.Store(d.Unix())
	}
	raw := resp.RawBody()
	defer raw.Close()
	data, err := io.ReadAll(io.LimitReader(raw, c.cfg.MaxResponseBytes+1))
	if err != nil {
		return fmt.Errorf("%s %s: read body: %w", method, u, err)
	}
	if int64(len(data)) > c.cfg.MaxResponseBytes {
		return fmt.Errorf("%s %s: %w (%d bytes)", method, u, ErrTooLarge, c.cfg.MaxResponseBytes)
	}
	ct := resp.Header().Get("Content-Type")
	if resp.StatusCode() < 200 || resp.StatusCode() > 299 {
		re := &RemoteError{Method: method, URL: u, Status: resp.StatusCode(), Message: strings.TrimSpace(string(data))}
		var rex struct {
			RemoteException struct {
				Exception, Message string
			}
		}
		if strings.Contains(ct, "json") && json.Unmarshal(data, &rex) == nil && rex.RemoteException.Exception != "" {
			re.Exception, re.Message = rex.RemoteException.Exception, rex.RemoteException.Message
		}
		re.Message = Redact(re.Message) // an error body may echo a cookie or a token
		if len(re.Message) > 500 {
			re.Message = re.Message[:500] + "…"
		}
		return re
	}
	if v == nil {
		return nil
	}
	if sp, ok := v.(*string); ok {
		*sp = string(data)
		return nil
	}
	if strings.Contains(ct, "text/html") || bytes.HasPrefix(bytes.TrimSpace(data), []byte("<")) {
		return badAnswer{fmt.Errorf("%s %s: expected JSON, got %s (a login page or a standby RM?)", method, u, orUnknown(ct))}
	}
	if err := json.Unmarshal(data, v); err != nil {
		return badAnswer{fmt.Errorf("%s %s: decode JSON: %w", method, u, err)}
	}
	return nil
}

// badAnswer is a response that arrived whole but cannot be used (not JSON,
// or JSON that does not decode): not retried against the same server.
type badAnswer struct{ error }

func (b badAnswer) Unwrap() error { return b.error }

func orUnknown(s string) string {
	if s == "" {
		return "no content type"
	}
	return s
}
