package spark

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/go-resty/resty/v2"
	"github.com/hashicorp/go-hclog"
)

// Config says where Spark's REST API is reached.
type Config struct {
	// ProxyAddress returns the web proxy that reaches running apps'
	// drivers: the active RM ("http://rm:8088", yarn.Client.ActiveRM, so
	// a failover is followed) or a standalone web proxy. nil: running
	// apps cannot be read.
	ProxyAddress func() string
	// HistoryAddress is spark.yarn.historyServer.address: "host:18080"
	// (Spark's form, no scheme) or http(s)://host:port. "": finished apps
	// cannot be read.
	HistoryAddress string
	// User is the simple-auth user (?user.name=), as for the RM.
	User string
	// Timeout bounds each call (default 10 s).
	Timeout time.Duration
	// MaxResponseBytes caps a response body (default 256 MiB).
	MaxResponseBytes int64
	// Retries for a GET that failed in transit or with a 5xx (default 2;
	// negative: none).
	Retries int
	// HTTPClient is the transport (yarn.HTTPClientFor for TLS; tests).
	HTTPClient *http.Client
	Logger     hclog.Logger
}

// Client reads Spark's monitoring REST API.
type Client struct {
	cfg      Config
	history  string
	rc       *resty.Client
	requests atomic.Int64
}

// ErrNotRunning: the web proxy did not reach a running driver for the app
// (it redirected, typically to the History Server once the app finished,
// or answered 404 or a web page): read the app from the History Server.
var ErrNotRunning = errors.New("spark driver not reachable through the web proxy (app finished?)")

// ErrTooLarge: a response exceeded MaxResponseBytes.
var ErrTooLarge = errors.New("response exceeds the size cap")

// RemoteError is a non-2xx answer from Spark or the proxy. Spark's REST
// errors are plain text ("unknown app: ...", "Bad value for parameter
// \"quantiles\"...").
type RemoteError struct {
	URL      string
	Status   int
	Message  string
	Location string // a redirect's target, not followed
}

func (e *RemoteError) Error() string {
	if e.Location != "" {
		return fmt.Sprintf("GET %s: HTTP %d redirect to %s", e.URL, e.Status, e.Location)
	}
	return fmt.Sprintf("GET %s: HTTP %d: %s", e.URL, e.Status, e.Message)
}

// New builds a client; it contacts nothing.
func New(cfg Config) (*Client, error) {
	history := ""
	if a := strings.TrimSpace(cfg.HistoryAddress); a != "" {
		if !strings.Contains(a, "://") {
			a = "http://" + a // spark.yarn.historyServer.address has no scheme
		}
		u, err := url.Parse(a)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") {
			return nil, fmt.Errorf("spark history server address %q: want host:port or http(s)://host:port", cfg.HistoryAddress)
		}
		history = strings.TrimRight(a, "/")
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
	case cfg.Retries < 0:
		cfg.Retries = 0
	}
	if cfg.Logger == nil {
		cfg.Logger = hclog.NewNullLogger()
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	// Redirects are answers: the proxy redirects a finished app to the
	// History Server's web UI, which is no REST resource.
	rc := resty.NewWithClient(hc).SetTimeout(cfg.Timeout).SetDoNotParseResponse(true).
		SetHeader("Accept", "application/json").
		SetRedirectPolicy(resty.RedirectPolicyFunc(func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }))
	if cfg.User != "" {
		rc.SetQueryParam("user.name", cfg.User)
	}
	return &Client{cfg: cfg, history: history, rc: rc}, nil
}

// Requests is how many HTTP requests the client sent (retries included):
// the per-cycle budget counts them.
func (c *Client) Requests() int64 { return c.requests.Load() }

// Source is where one application's REST resources live: its running
// driver behind the web proxy, or the History Server.
type Source struct {
	appRoot string // ".../api/v1/applications/<id>[/<attempt>]"
	proxied bool
}

// Proxied reports a running app's driver behind the web proxy.
func (s Source) Proxied() bool { return s.proxied }

func (s Source) String() string { return s.appRoot }

// Running is a running YARN app's driver UI behind the web proxy:
// <proxy>/proxy/<appId>/api/v1/applications/<appId>. The live UI serves
// its own app only, under its id; no attempt is named.
func (c *Client) Running(appID string) (Source, error) {
	if err := checkID("app id", appID); err != nil {
		return Source{}, err
	}
	if c.cfg.ProxyAddress == nil {
		return Source{}, errors.New("spark: no web proxy address (the RM's) to read running apps through")
	}
	p := strings.TrimRight(c.cfg.ProxyAddress(), "/")
	if p == "" {
		return Source{}, errors.New("spark: empty web proxy address")
	}
	esc := url.PathEscape(appID)
	return Source{appRoot: p + "/proxy/" + esc + "/api/v1/applications/" + esc, proxied: true}, nil
}

// HasHistory reports a History Server address (without one, finished
// apps cannot be read or listed).
func (c *Client) HasHistory() bool { return c.history != "" }

// History is a finished app on the History Server. A YARN cluster-mode
// app's attempts are named ("1"): the History Server needs attemptID
// then (Application's Attempts[0].AttemptID, newest first); "" for a
// single-attempt app.
func (c *Client) History(appID, attemptID string) (Source, error) {
	if err := checkID("app id", appID); err != nil {
		return Source{}, err
	}
	if c.history == "" {
		return Source{}, errors.New("spark: no History Server address: set spark.yarn.historyServer.address")
	}
	root := c.history + "/api/v1/applications/" + url.PathEscape(appID)
	if attemptID != "" {
		if err := checkID("attempt id", attemptID); err != nil {
			return Source{}, err
		}
		root += "/" + url.PathEscape(attemptID)
	}
	return Source{appRoot: root}, nil
}

func checkID(what, id string) error {
	if id == "" || strings.ContainsAny(id, "/?#% ") {
		return fmt.Errorf("spark: %s %q: not an id", what, id)
	}
	return nil
}

// get GETs u and hands the answer's JSON stream to decode, retrying a
// failure in transit or a 5xx. decode must start over on each call.
func (c *Client) get(ctx context.Context, u string, query url.Values, proxied bool, decode func(*jsontext.Decoder) error) error {
	var err error
	for attempt := 0; attempt <= c.cfg.Retries; attempt++ {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return fmt.Errorf("GET %s: %w", u, ctx.Err())
			case <-time.After(time.Duration(attempt*attempt) * 100 * time.Millisecond):
			}
		}
		var retry bool
		retry, err = c.getOnce(ctx, u, query, proxied, decode)
		if err == nil || !retry || ctx.Err() != nil {
			return err
		}
		c.cfg.Logger.Debug("spark REST GET failed; retrying", "url", u, "attempt", attempt, "error", err)
	}
	return err
}

func (c *Client) getOnce(ctx context.Context, u string, query url.Values, proxied bool, decode func(*jsontext.Decoder) error) (retry bool, err error) {
	c.requests.Add(1)
	req := c.rc.R().SetContext(ctx)
	if query != nil {
		req.SetQueryParamsFromValues(query)
	}
	resp, err := req.Get(u)
	if err != nil {
		return true, fmt.Errorf("GET %s: %w", u, err)
	}
	raw := resp.RawBody()
	defer raw.Close()
	body := &cappedReader{r: raw, left: c.cfg.MaxResponseBytes}
	status := resp.StatusCode()
	if status < 200 || status > 299 {
		msg, _ := io.ReadAll(io.LimitReader(body, 4096))
		re := &RemoteError{URL: u, Status: status, Message: firstLine(string(msg)), Location: resp.Header().Get("Location")}
		if proxied && (status == http.StatusNotFound || status >= 300 && status < 400) {
			return false, fmt.Errorf("%w: %w", ErrNotRunning, re)
		}
		return status >= 500, re
	}
	br := bufio.NewReaderSize(body, 64<<10)
	first, perr := firstByte(br)
	if perr != nil && !errors.Is(perr, io.EOF) {
		return true, fmt.Errorf("GET %s: read body: %w", u, perr)
	}
	if ct := resp.Header().Get("Content-Type"); strings.Contains(ct, "text/html") || first == '<' {
		// The proxy's "app not running" page, a login page.
		err := fmt.Errorf("GET %s: expected JSON, got %s", u, orUnknown(ct))
		if proxied {
			return false, fmt.Errorf("%w: %w", ErrNotRunning, err)
		}
		return false, err
	}
	dec := jsontext.NewDecoder(br, decodeOptions)
	if err := decode(dec); err != nil {
		if errors.Is(err, ErrTooLarge) {
			return false, fmt.Errorf("GET %s: %w (%d bytes)", u, ErrTooLarge, c.cfg.MaxResponseBytes)
		}
		return false, fmt.Errorf("GET %s: decode at %s: %w", u, dec.StackPointer(), err)
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		return false, fmt.Errorf("GET %s: data after the JSON value", u)
	}
	return false, nil
}

func firstByte(br *bufio.Reader) (byte, error) {
	for {
		b, err := br.Peek(1)
		if err != nil {
			return 0, err
		}
		switch b[0] {
		case ' ', '\t', '\r', '\n':
			_, _ = br.ReadByte()
			continue
		}
		return b[0], nil
	}
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

func orUnknown(ct string) string {
	if ct == "" {
		return "a body without Content-Type"
	}
	return ct
}

// cappedReader fails with ErrTooLarge past left bytes.
type cappedReader struct {
	r    io.Reader
	left int64
}

func (c *cappedReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		var one [1]byte
		if n, err := c.r.Read(one[:]); n > 0 {
			return 0, ErrTooLarge
		} else if err != nil {
			return 0, err
		}
		return 0, nil
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}
