package yarn

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/go-resty/resty/v2"
	"github.com/hashicorp/go-hclog"
)

// Config says how to reach and authenticate to YARN.
type Config struct {
	// RMAddresses are RM web addresses (several for RM HA), e.g. http://rm:8088.
	RMAddresses []string
	// JHSAddress is the JobHistory server web address.
	JHSAddress string
	// WebProxyAddress is a standalone web proxy (yarn.web-proxy.address);
	// empty: the RM's own /proxy/, read through the active RM.
	WebProxyAddress string
	// User is the simple-auth user (?user.name=).
	User string
	// Timeout bounds each call (default 10 s).
	Timeout time.Duration
	// MaxResponseBytes caps a response body (default 256 MiB).
	MaxResponseBytes int64
	// HistoryTasksPerJob bounds how many succeeded tasks of each type of a
	// finished job are read from JobHistory for calibration (each costs
	// an attempts request, and a map one more for its counters). Default
	// 64; negative: every task.
	HistoryTasksPerJob int
	// RunningReduces reads each running job's running reduces from its AM
	// (Job.RunningReduces, RunningReducesElapsed, RunningReduceNodes): one
	// more request per job with reduces running, and one per reduce task
	// the first time it is seen (its attempts, for the node), counted in
	// ObserveOptions.JobBudget from the job's last read. The daemon turns
	// it on: the deadline report costs each running reduce at its node
	// type's fit (deadline.ReportOptions.NodeTypeOf).
	RunningReduces bool
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
	// placements reuses apps' containers per node between snapshots,
	// jobs their MapReduce jobs.
	placements placements
	jobs       jobCache
	// nodeList keeps the last node listing (nodecache.go).
	nodeList nodeCache
	// usage keeps apps' use per partition between snapshots (appusage.go).
	usage appUsageCache
	// oldDeSelects: the RM refused deSelects literals after
	// resourceRequests (before YARN-6871); /apps asks with that one only.
	oldDeSelects atomic.Bool
	// confs keeps each running job's conf (read once per job).
	confs confCache
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
	if cfg.WebProxyAddress != "" {
		u, err := url.Parse(cfg.WebProxyAddress)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("web proxy address %q: want http(s)://host:port", cfg.WebProxyAddress)
		}
		cfg.WebProxyAddress = strings.TrimRight(cfg.WebProxyAddress, "/")
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 10 * time.Second
	}
	if cfg.MaxResponseBytes == 0 {
		cfg.MaxResponseBytes = 256 << 20
	}
	if cfg.HistoryTasksPerJob == 0 {
		cfg.HistoryTasksPerJob = defaultHistoryTasksPerJob
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
	// Redirects are followed by do, one hop at a time, not by the HTTP
	// client: a standby RM's 307 must be re-sent with its body to the
	// active RM, a 307 without Location means no RM is active, and a
	// redirect to a web-UI page (a finished app's AM) is an answer, not a
	// page to parse.
	rc := resty.NewWithClient(hc).SetTimeout(cfg.Timeout).SetDoNotParseResponse(true).
		SetHeader("Accept", "application/json").
		SetRedirectPolicy(resty.RedirectPolicyFunc(func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }))
	if cfg.Kerberos != nil {
		kc, err := kerberosClient(*cfg.Kerberos)
		if err != nil {
			return nil, err
		}
		hook := spnegoHook(kc)
		// Every hop is its own request, so a redirect to the active RM on
		// another host gets its own SPNEGO token (for HTTP/<active host>).
		rc.SetPreRequestHook(func(_ *resty.Client, r *http.Request) error { return hook(r) })
	}
	if cfg.User != "" {
		rc.SetQueryParam("user.name", cfg.User)
	}
	return &Client{cfg: cfg, rc: rc, jobs: jobCache{reduceReads: cfg.RunningReduces}}, nil
}

// ActiveRM is the RM address that answered last (RM HA).
func (c *Client) ActiveRM() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cfg.RMAddresses[c.active]
}

// rmGet GETs an RM path, trying the active RM first then the others (HA:
// a standby answers with a redirect, an error page or ErrNoActiveRM), with
// retries and backoff, and decodes JSON into v. When every RM failed and
// one of them said that no RM is active, the error wraps ErrNoActiveRM.
func (c *Client) rmGet(ctx context.Context, path string, query url.Values, v any) error {
	c.mu.Lock()
	start := c.active
	c.mu.Unlock()
	var last, noActive error
	n := len(c.cfg.RMAddresses)
	for i := 0; i < n; i++ {
		idx := (start + i) % n
		base := c.cfg.RMAddresses[idx]
		err := c.getJSON(ctx, base+path, query, v)
		if err == nil {
			return nil
		}
		last = err
		if errors.Is(err, ErrNoActiveRM) {
			noActive = err
			continue
		}
		var re *RemoteError
		// A 3xx left unfollowed is not an answer from an active RM.
		if errors.As(err, &re) && re.Status >= 400 && re.Status < 500 && !strings.Contains(strings.ToLower(re.Message), "standby") {
			return err // a real answer from an active RM
		}
		if ctx.Err() != nil {
			return err
		}
	}
	if noActive != nil {
		return noActive
	}
	return last
}

// rmWrite sends a write (PUT/POST) to the active RM, never retried against
// the same RM. A standby's 307 is followed by do, body and all; the next
// RM is tried only when nothing can have been applied: the connection was
// refused, or a standby redirected without naming the active RM.
func (c *Client) rmWrite(ctx context.Context, method, path string, query url.Values, body []byte, contentType string, v any) error {
	c.mu.Lock()
	start := c.active
	c.mu.Unlock()
	var last, noActive error
	n := len(c.cfg.RMAddresses)
	for i := 0; i < n; i++ {
		base := c.cfg.RMAddresses[(start+i)%n]
		err := c.do(ctx, method, base+path, query, body, contentType, v)
		if err == nil {
			return nil
		}
		last = err
		var re *RemoteError
		switch {
		case errors.Is(err, ErrNoActiveRM):
			noActive = err
		case isDialError(err):
		case errors.As(err, &re) && re.Status >= 300 && re.Status < 400:
		default:
			return err
		}
	}
	if noActive != nil {
		return noActive
	}
	return last
}

// isDialError: the request never reached a server (connection refused, no
// route): safe to send to another RM.
func isDialError(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
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
		// ErrNoActiveRM: the standby says when to ask again (seconds);
		// the caller waits a cycle rather than this call spinning.
		if err == nil || errors.As(err, &re) && re.Status < 500 || ctx.Err() != nil || errors.Is(err, ErrTooLarge) || errors.As(err, &bad) ||
			errors.Is(err, ErrNoActiveRM) {
			return err // asking the same server again would get the same answer
		}
	}
	return err
}

// maxRedirects bounds the hops do follows for one call.
const maxRedirects = 5

// do sends one request and decodes a JSON answer into v (when non-nil), or
// returns the body as a *RemoteError for a non-2xx status. Redirects are
// followed here, hop by hop:
//   - 307/308 (a standby RM names the active one): the same method, body
//     and query are sent to Location — a standby applies nothing;
//   - 307 without Location (a standby that knows no active RM, with a
//     Refresh header): ErrNoActiveRM;
//   - 301/302/303: followed for a GET to a REST path only. A redirect to a
//     web-UI page (a finished app's AM proxy answers 302 to a JobHistory
//     page) is returned as a *RemoteError with its status and Location.
func (c *Client) do(ctx context.Context, method, u string, query url.Values, body []byte, contentType string, v any) error {
	target := u
	for hop := 0; ; hop++ {
		status, hdr, rbody, err := c.send(ctx, method, target, query, body, contentType)
		if err != nil {
			return err
		}
		if status < 300 || status > 399 {
			err := c.answer(method, target, status, hdr, rbody, v)
			rbody.Close()
			return err
		}
		data, err := c.readAll(method, target, rbody)
		rbody.Close()
		if err != nil {
			return err
		}
		loc := hdr.Get("Location")
		msg := strings.TrimSpace(string(data))
		if loc == "" {
			if status == http.StatusTemporaryRedirect && (hdr.Get("Refresh") != "" || strings.Contains(msg, "active RM")) {
				return fmt.Errorf("%s %s: HTTP %d %q: %w", method, target, status, firstLine(msg), ErrNoActiveRM)
			}
			return &RemoteError{Method: method, URL: target, Status: status, Message: firstLine(msg)}
		}
		next, err := resolveLocation(target, query, loc)
		if err != nil {
			return &RemoteError{Method: method, URL: target, Status: status, Location: loc, Message: fmt.Sprintf("unusable Location %q: %v", loc, err)}
		}
		keepsMethod := status == http.StatusTemporaryRedirect || status == http.StatusPermanentRedirect
		if !isRESTPath(next.Path) || (!keepsMethod && method != http.MethodGet) {
			return &RemoteError{Method: method, URL: target, Status: status, Location: next.String(),
				Message: "redirected to " + next.String() + " (not a REST resource; not followed)"}
		}
		if hop >= maxRedirects {
			return fmt.Errorf("%s %s: more than %d redirects (last to %s)", method, u, maxRedirects, next)
		}
		query = next.Query()
		next.RawQuery = ""
		target = next.String()
	}
}

// send performs one HTTP exchange; the caller reads and closes the body,
// capped at MaxResponseBytes.
func (c *Client) send(ctx context.Context, method, u string, query url.Values, body []byte, contentType string) (int, http.Header, io.ReadCloser, error) {
	req := c.rc.R().SetContext(ctx)
	if query != nil {
		req.SetQueryParamsFromValues(query)
	}
	if body != nil {
		req.SetBody(body).SetHeader("Content-Type", contentType)
	}
	resp, err := req.Execute(method, u)
	if err != nil {
		return 0, nil, nil, fmt.Errorf("%s %s: %w", method, u, err)
	}
	if d, err := http.ParseTime(resp.Header().Get("Date")); err == nil {
		c.serverTime.Store(d.Unix())
	}
	raw := resp.RawBody()
	return resp.StatusCode(), resp.Header(), cappedBody{&cappedReader{r: raw, left: c.cfg.MaxResponseBytes}, raw}, nil
}

// cappedReader reads at most left bytes and fails with ErrTooLarge when
// the body holds more.
type cappedReader struct {
	r    io.Reader
	left int64
	err  error // the last error r returned
}

func (c *cappedReader) lastErr() error { return c.err }

func (c *cappedReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		var one [1]byte
		if n, err := c.r.Read(one[:]); n > 0 {
			return 0, ErrTooLarge
		} else if err != nil {
			c.err = err
			return 0, err
		}
		return 0, nil
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	if err != nil {
		c.err = err
	}
	return n, err
}

// cappedBody is a response body behind its cap.
type cappedBody struct {
	*cappedReader
	io.Closer
}

// readAll reads a (capped) body whole: error answers, redirects, strings.
func (c *Client) readAll(method, u string, body io.Reader) ([]byte, error) {
	data, err := io.ReadAll(body)
	if errors.Is(err, ErrTooLarge) {
		return nil, fmt.Errorf("%s %s: %w (%d bytes)", method, u, ErrTooLarge, c.cfg.MaxResponseBytes)
	}
	if err != nil {
		return nil, fmt.Errorf("%s %s: read body: %w", method, u, err)
	}
	return data, nil
}

// bodyReaders are the 64 KiB read buffers of answers, reused: a snapshot
// reads hundreds of answers (13 MiB of buffers per snapshot at
// scale-10k otherwise).
var bodyReaders = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 64<<10) }}

// streamDecoder is a value that decodes itself from a JSON stream, element
// by element, instead of from a whole body (the large list answers).
type streamDecoder interface {
	decodeStream(dec *jsontext.Decoder) error
}

// answer turns a final (non-redirect) response into v or an error. A 2xx
// JSON answer is decoded from the stream (never held whole): the first
// byte says whether it is JSON at all (an HTML login page or a standby's
// page is not).
func (c *Client) answer(method, u string, status int, hdr http.Header, body io.Reader, v any) error {
	ct := hdr.Get("Content-Type")
	if status < 200 || status > 299 {
		data, err := c.readAll(method, u, body)
		if err != nil {
			return err
		}
		re := &RemoteError{Method: method, URL: u, Status: status, Message: strings.TrimSpace(string(data))}
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
	switch sp, isString := v.(*string); {
	case v == nil:
		if _, err := io.Copy(io.Discard, body); errors.Is(err, ErrTooLarge) {
			return fmt.Errorf("%s %s: %w (%d bytes)", method, u, ErrTooLarge, c.cfg.MaxResponseBytes)
		}
	case isString:
		data, err := c.readAll(method, u, body)
		if err != nil {
			return err
		}
		*sp = string(data)
	default:
		br := bodyReaders.Get().(*bufio.Reader)
		br.Reset(body)
		defer func() { br.Reset(nil); bodyReaders.Put(br) }()
		first, err := firstByte(br)
		if err != nil && !errors.Is(err, io.EOF) {
			return c.bodyErr(method, u, err, body)
		}
		if strings.Contains(ct, "text/html") || first == '<' {
			return badAnswer{fmt.Errorf("%s %s: expected JSON, got %s (a login page or a standby RM?)", method, u, orUnknown(ct))}
		}
		if sd, ok := v.(streamDecoder); ok {
			dec := newStreamDecoder(br)
			err = sd.decodeStream(dec)
			if err == nil {
				if _, terr := dec.ReadToken(); terr != io.EOF {
					err = fmt.Errorf("data after the JSON value")
					if terr != nil {
						err = terr
					}
				}
			}
		} else {
			dec := json.NewDecoder(br)
			err = dec.Decode(v)
			if err == nil {
				if _, terr := dec.Token(); terr != io.EOF {
					err = fmt.Errorf("data after the JSON value")
					if terr != nil {
						err = terr
					}
				}
			}
		}
		if err != nil {
			return c.bodyErr(method, u, err, body)
		}
	}
	c.noteAnswered(u)
	return nil
}

// bodyErr wraps a failure reading or decoding a 2xx body: a transport
// failure (retryable), an over-long body, or an answer that is no usable
// JSON (badAnswer, not retried).
func (c *Client) bodyErr(method, u string, err error, body io.Reader) error {
	if errors.Is(err, ErrTooLarge) {
		return fmt.Errorf("%s %s: %w (%d bytes)", method, u, ErrTooLarge, c.cfg.MaxResponseBytes)
	}
	if rerr := readErr(body); rerr != nil && rerr != io.EOF && errors.Is(err, rerr) {
		return fmt.Errorf("%s %s: read body: %w", method, u, err)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || err == io.EOF {
		return badAnswer{fmt.Errorf("%s %s: decode JSON: unexpected end of JSON input (the body ends mid-value)", method, u)}
	}
	return badAnswer{fmt.Errorf("%s %s: decode JSON: %w", method, u, err)}
}

// readErr is the transport error the body's reader last returned.
func readErr(body io.Reader) error {
	if r, ok := body.(interface{ lastErr() error }); ok {
		return r.lastErr()
	}
	return nil
}

// firstByte peeks the body's first non-space byte (0 for an empty body).
func firstByte(br *bufio.Reader) (byte, error) {
	for {
		b, err := br.ReadByte()
		if err != nil {
			return 0, err
		}
		switch b {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return b, br.UnreadByte()
	}
}

// noteAnswered remembers which configured RM answered (the active one).
func (c *Client) noteAnswered(u string) {
	for i, a := range c.cfg.RMAddresses {
		if strings.HasPrefix(u, a+"/") {
			c.mu.Lock()
			c.active = i
			c.mu.Unlock()
			return
		}
	}
}

// resolveLocation makes a Location absolute against the request URL
// (with its query, which a relative Location may rely on).
func resolveLocation(reqURL string, query url.Values, loc string) (*url.URL, error) {
	base, err := url.Parse(reqURL)
	if err != nil {
		return nil, err
	}
	if len(query) > 0 {
		base.RawQuery = query.Encode()
	}
	ref, err := url.Parse(loc)
	if err != nil {
		return nil, err
	}
	next := base.ResolveReference(ref)
	if next.Scheme != "http" && next.Scheme != "https" {
		return nil, fmt.Errorf("scheme %q", next.Scheme)
	}
	return next, nil
}

// isRESTPath reports whether a path is one of the REST APIs the client
// reads: the RM's and JobHistory's /ws/..., an AM's /proxy/{app}/ws/...
// (a JobHistory web page such as /jobhistory/job/{job}/ws/v1/... is not).
func isRESTPath(p string) bool {
	if strings.HasPrefix(p, "/ws/") {
		return true
	}
	if rest, ok := strings.CutPrefix(p, "/proxy/"); ok {
		_, tail, ok := strings.Cut(rest, "/")
		return ok && strings.HasPrefix(tail, "ws/")
	}
	return false
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return strings.TrimSpace(line)
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
