package rmweb

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Fault is one way the RM misbehaves on a request.
type Fault string

// Faults the switch can inject.
const (
	Fault5xx       Fault = "5xx"        // 500 with a RemoteException, nothing done
	FaultTimeout   Fault = "timeout"    // never answers (until the client gives up)
	FaultReset     Fault = "reset"      // closes the connection without a response
	FaultSlowBody  Fault = "slow-body"  // the real answer, one byte per 5 ms
	FaultTruncated Fault = "truncated"  // the real answer, cut half-way (Content-Length says more)
	FaultResetDone Fault = "reset-done" // does the request, then closes without answering
	// FaultStandby makes this RM a standby from this request on (it does
	// the request first when it is a write: the failover happens between
	// the PUT and the read-back).
	FaultStandby Fault = "standby"
)

// Rule injects Fault into the Nth (1-based; 0: every) request matching
// Method and a path containing Path.
type Rule struct {
	Method, Path string
	Nth          int
	Fault        Fault
}

// FaultSwitch is a middleware in front of the mini RM's handler. Counts
// are kept per method+path for assertions (bounded retries).
type FaultSwitch struct {
	mu      sync.Mutex
	rules   []Rule
	seen    map[string]int
	standby bool
	Count   map[string]int // "GET /ws/v1/cluster/scheduler-conf" → requests
	// Peer, when set, is the other RM of an HA pair over the same state:
	// it starts as the standby and becomes active when this one fails over.
	Peer *FaultSwitch
}

// SetStandby makes the RM behind the switch a standby (or active again).
func (f *FaultSwitch) SetStandby(v bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.standby = v
}

// Set replaces the rules and clears the counts.
func (f *FaultSwitch) Set(rules ...Rule) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rules, f.seen, f.standby, f.Count = rules, map[string]int{}, false, map[string]int{}
}

// Requests returns how many requests arrived for method and path.
func (f *FaultSwitch) Requests(method, path string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.Count[method+" "+path]
}

func (f *FaultSwitch) pick(r *http.Request) (Fault, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.Count == nil {
		f.Count, f.seen = map[string]int{}, map[string]int{}
	}
	f.Count[r.Method+" "+r.URL.Path]++
	if f.standby {
		return FaultStandby, false
	}
	for i, rule := range f.rules {
		if rule.Method != r.Method || !strings.Contains(r.URL.Path, rule.Path) {
			continue
		}
		key := string(rune('0' + i))
		f.seen[key]++
		if rule.Nth == 0 || rule.Nth == f.seen[key] {
			if rule.Fault == FaultStandby {
				f.standby = true
				if f.Peer != nil {
					go f.Peer.SetStandby(false) // not under our lock
				}
			}
			return rule.Fault, true
		}
	}
	return "", false
}

// Wrap puts the switch in front of h.
func (f *FaultSwitch) Wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fault, triggered := f.pick(r)
		switch fault {
		case "":
			h.ServeHTTP(w, r)
		case Fault5xx:
			remoteError(w, http.StatusInternalServerError, "WebApplicationException", "javax.ws.rs.WebApplicationException", "injected 500")
		case FaultTimeout:
			// Read the body first: only then does the server notice the
			// client hanging up (and cancel the request's context).
			io.Copy(io.Discard, r.Body)
			select {
			case <-r.Context().Done():
			case <-time.After(time.Minute):
			}
		case FaultReset:
			reset(w)
		case FaultResetDone:
			h.ServeHTTP(discard{}, r)
			reset(w)
		case FaultSlowBody:
			rec := &recorder{h: http.Header{}}
			h.ServeHTTP(rec, r)
			copyHeader(w.Header(), rec.h)
			w.WriteHeader(rec.status())
			for _, b := range rec.body {
				if _, err := w.Write([]byte{b}); err != nil {
					return
				}
				if fl, ok := w.(http.Flusher); ok {
					fl.Flush()
				}
				time.Sleep(5 * time.Millisecond)
			}
		case FaultTruncated:
			rec := &recorder{h: http.Header{}}
			h.ServeHTTP(rec, r)
			copyHeader(w.Header(), rec.h)
			w.Header().Set("Content-Length", strconv.Itoa(len(rec.body)))
			w.WriteHeader(rec.status())
			w.Write(rec.body[:len(rec.body)/2])
			reset(w)
		case FaultStandby:
			if r.Method != http.MethodGet && triggered {
				h.ServeHTTP(w, r) // the write lands, then the RM fails over
				return
			}
			// A standby RM's web answer (recorded: 3.3.6 answers REST calls on
			// a standby with a redirect or "This is standby RM").
			plain(w, http.StatusServiceUnavailable, "This is standby RM. The redirect url is: /")
		}
	})
}

func reset(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if c, _, err := hj.Hijack(); err == nil {
			c.Close()
			return
		}
	}
	panic(http.ErrAbortHandler)
}

type discard struct{}

func (discard) Header() http.Header         { return http.Header{} }
func (discard) Write(b []byte) (int, error) { return len(b), nil }
func (discard) WriteHeader(int)             {}

type recorder struct {
	h    http.Header
	code int
	body []byte
}

func (r *recorder) Header() http.Header         { return r.h }
func (r *recorder) WriteHeader(c int)           { r.code = c }
func (r *recorder) Write(b []byte) (int, error) { r.body = append(r.body, b...); return len(b), nil }
func (r *recorder) status() int {
	if r.code == 0 {
		return http.StatusOK
	}
	return r.code
}

func copyHeader(dst, src http.Header) {
	for k, v := range src {
		dst[k] = v
	}
}
