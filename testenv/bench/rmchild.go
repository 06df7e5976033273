package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The scale rows' mini RM runs in its own process (issue 19: the user
// measured against yarnsim as a separate process). In the bench's own
// process the RM's rendering, garbage and heap mixed with the client's:
// the client's peak heap counted the RM's answers, and a GC cycle the RM
// caused landed on whichever client happened to run. The bench re-executes
// itself with rmChildEnv set; that child builds the warm scenario, serves
// the RM, AM proxy and JobHistory APIs on loopback, and answers a few
// control requests under /__bench/ (never metered):
//
//	GET  /__bench/meter                  the cumulative rmReading
//	POST /__bench/reset                  zero the meter
//	POST /__bench/advance?by=30s         run virtual time forward; answers the reading
//	POST /__bench/prerendered?on=true    serve every GET from a render cache (false drops it)
//	POST /__bench/gc                     collect the child's garbage; answers the reading
//
// The child exits when its stdin closes (the parent ended, however it
// ended), on SIGKILL from the parent's stop, and — on Linux — when the
// parent dies (Pdeathsig).
const (
	rmChildEnv     = "YARN_SIDECAR_BENCH_RM"      // the scenario to serve
	rmChildWarmEnv = "YARN_SIDECAR_BENCH_RM_WARM" // virtual time to run before serving
)

// The child's entry point: it runs before main (and before a test
// binary's TestMain), so the bench and its tests re-execute the same way.
func init() {
	if name := os.Getenv(rmChildEnv); name != "" {
		if err := serveRMChild(name, os.Getenv(rmChildWarmEnv), os.Stdin, os.Stdout); err != nil {
			fmt.Fprintf(os.Stderr, "bench rm child: %v\n", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
}

// rmReading is the child's meter: cumulative since start or the last
// reset, or (from rmProcess.metered) the difference over one measure.
type rmReading struct {
	Busy       time.Duration `json:"busyNs"`     // summed handler time; requests overlap
	CPU        time.Duration `json:"cpuNs"`      // the child's user+system CPU, GC included
	Requests   int64         `json:"requests"`   // metered requests
	Bytes      int64         `json:"bytes"`      // response bodies sent
	AMRequests int64         `json:"amRequests"` // to running jobs' AMs (/proxy/...)
	Now        time.Time     `json:"now"`        // the mini cluster's virtual time
	HeapAlloc  uint64        `json:"heapAlloc"`  // the child's live heap when read
	// Kinds splits requests, bytes and handler time by kind of request
	// (requestKind), so a row can say which request costs what.
	Kinds map[string]kindReading `json:"kinds,omitempty"`
}

// kindReading is the meter of one kind of request.
type kindReading struct {
	Busy     time.Duration `json:"busyNs"`
	Requests int64         `json:"requests"`
	Bytes    int64         `json:"bytes"`
}

// requestKinds are the kinds requestKind names, in the order rows list them.
var requestKinds = []string{"apps", "nodes", "scheduler", "metrics", "containers", "appattempts", "node labels", "scheduler-conf", "AM", "JobHistory", "other"}

// requestKind classifies a metered request by its path.
func requestKind(path string) string {
	const c = "/ws/v1/cluster/"
	switch {
	case strings.HasPrefix(path, "/proxy/"):
		return "AM"
	case strings.HasPrefix(path, "/ws/v1/history"):
		return "JobHistory"
	case !strings.HasPrefix(path, c):
		return "other"
	}
	rest := strings.TrimSuffix(strings.TrimPrefix(path, c), "/")
	first, tail, _ := strings.Cut(rest, "/")
	switch {
	case first == "apps" && tail == "":
		return "apps"
	case first == "apps" && strings.HasSuffix(tail, "/containers"):
		return "containers"
	case first == "apps" && strings.HasSuffix(tail, "/appattempts"):
		return "appattempts"
	case first == "nodes" && tail == "":
		return "nodes"
	case first == "scheduler" && tail == "":
		return "scheduler"
	case first == "metrics":
		return "metrics"
	case first == "scheduler-conf":
		return "scheduler-conf"
	case first == "get-node-labels" || first == "get-node-to-labels" || first == "label-mappings":
		return "node labels"
	}
	return "other"
}

// sub is r minus an earlier reading (Now and HeapAlloc stay r's).
func (r rmReading) sub(before rmReading) rmReading {
	r.Busy -= before.Busy
	r.CPU -= before.CPU
	r.Requests -= before.Requests
	r.Bytes -= before.Bytes
	r.AMRequests -= before.AMRequests
	kinds := make(map[string]kindReading, len(r.Kinds))
	for k, v := range r.Kinds {
		b := before.Kinds[k]
		if d := (kindReading{Busy: v.Busy - b.Busy, Requests: v.Requests - b.Requests, Bytes: v.Bytes - b.Bytes}); d.Requests != 0 {
			kinds[k] = d
		}
	}
	r.Kinds = kinds
	return r
}

// byKind is the reading's split by kind of request, e.g. "apps 1 req
// 23.5 MiB busy 400ms; nodes ...", in requestKinds' order.
func (r rmReading) byKind() string {
	var parts []string
	for _, k := range requestKinds {
		v, ok := r.Kinds[k]
		if !ok {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %d req %.1f MiB busy %s", k, v.Requests, float64(v.Bytes)/(1<<20), v.Busy.Round(time.Millisecond)))
	}
	return strings.Join(parts, "; ")
}

// rmMeter wraps the mini RM's handler, summing handler time and requests.
// With prerendered set, GET answers are rendered once and then served
// from memory, so a measure shows the client's cost (and the transfer)
// without the mini RM's rendering.
type rmMeter struct {
	h           http.Handler
	busy        atomic.Int64 // ns
	requests    atomic.Int64
	bytes       atomic.Int64
	amRequests  atomic.Int64
	cpu0        atomic.Int64          // process CPU at the last reset, ns
	kinds       map[string]*kindMeter // fixed at construction (newRMMeter)
	prerendered atomic.Bool
	mu          sync.Mutex
	cache       map[string]*httptest.ResponseRecorder
}

// kindMeter is one kind's share of the meter.
type kindMeter struct{ busy, requests, bytes atomic.Int64 }

func newRMMeter(h http.Handler) *rmMeter {
	m := &rmMeter{h: h, kinds: make(map[string]*kindMeter, len(requestKinds))}
	for _, k := range requestKinds {
		m.kinds[k] = &kindMeter{}
	}
	return m
}

// countingWriter counts the body bytes a handler writes.
type countingWriter struct {
	http.ResponseWriter
	n, kind *atomic.Int64
}

func (c countingWriter) Write(b []byte) (int, error) {
	n, err := c.ResponseWriter.Write(b)
	c.n.Add(int64(n))
	c.kind.Add(int64(n))
	return n, err
}

func (m *rmMeter) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	km := m.kinds[requestKind(r.URL.Path)]
	w := countingWriter{rw, &m.bytes, &km.bytes}
	start := time.Now()
	defer func() {
		took := int64(time.Since(start))
		m.busy.Add(took)
		m.requests.Add(1)
		km.busy.Add(took)
		km.requests.Add(1)
		if strings.HasPrefix(r.URL.Path, "/proxy/") {
			m.amRequests.Add(1)
		}
	}()
	if !m.prerendered.Load() || r.Method != http.MethodGet {
		m.h.ServeHTTP(w, r)
		return
	}
	m.mu.Lock()
	rec, ok := m.cache[r.URL.RequestURI()]
	m.mu.Unlock()
	if !ok {
		rec = httptest.NewRecorder()
		m.h.ServeHTTP(rec, r)
		m.mu.Lock()
		if m.cache == nil {
			m.cache = map[string]*httptest.ResponseRecorder{}
		}
		m.cache[r.URL.RequestURI()] = rec
		m.mu.Unlock()
	}
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	w.Write(rec.Body.Bytes())
}

// reading is the meter now, with the given virtual time.
func (m *rmMeter) reading(now time.Time) rmReading {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	kinds := make(map[string]kindReading, len(m.kinds))
	for k, km := range m.kinds {
		if n := km.requests.Load(); n > 0 {
			kinds[k] = kindReading{Busy: time.Duration(km.busy.Load()), Requests: n, Bytes: km.bytes.Load()}
		}
	}
	return rmReading{Busy: time.Duration(m.busy.Load()), CPU: processCPU() - time.Duration(m.cpu0.Load()),
		Requests: m.requests.Load(), Bytes: m.bytes.Load(), AMRequests: m.amRequests.Load(), Now: now, HeapAlloc: ms.HeapAlloc, Kinds: kinds}
}

func (m *rmMeter) reset() {
	m.busy.Store(0)
	m.requests.Store(0)
	m.bytes.Store(0)
	m.amRequests.Store(0)
	for _, km := range m.kinds {
		km.busy.Store(0)
		km.requests.Store(0)
		km.bytes.Store(0)
	}
	m.cpu0.Store(int64(processCPU()))
}

func (m *rmMeter) setPrerendered(on bool) {
	m.prerendered.Store(on)
	if !on {
		m.mu.Lock()
		m.cache = nil
		m.mu.Unlock()
	}
}

// serveRMChild is the child process: it warms the scenario, listens on
// loopback, writes its base URL as one line to out, and serves until in
// closes.
func serveRMChild(name, warmArg string, in io.Reader, out io.Writer) error {
	warm := 30 * time.Minute
	if warmArg != "" {
		d, err := time.ParseDuration(warmArg)
		if err != nil {
			return fmt.Errorf("%s: %w", rmChildWarmEnv, err)
		}
		warm = d
	}
	sc, err := scenarioFor(name)
	if err != nil {
		return err
	}
	c, err := warmClusterFor(sc, warm)
	if err != nil {
		return fmt.Errorf("warm %s: %w", name, err)
	}
	meter := newRMMeter(c.Handler())
	meter.reset()
	mux := http.NewServeMux()
	mux.Handle("/", meter)
	answer := func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(meter.reading(c.Now()))
	}
	mux.HandleFunc("GET /__bench/meter", func(w http.ResponseWriter, r *http.Request) { answer(w) })
	mux.HandleFunc("POST /__bench/reset", func(w http.ResponseWriter, r *http.Request) {
		meter.reset()
		answer(w)
	})
	mux.HandleFunc("POST /__bench/advance", func(w http.ResponseWriter, r *http.Request) {
		by, err := time.ParseDuration(r.URL.Query().Get("by"))
		if err != nil || by < 0 {
			http.Error(w, fmt.Sprintf("advance: by=%q is not a duration ≥ 0", r.URL.Query().Get("by")), http.StatusBadRequest)
			return
		}
		c.Step(by)
		// The simulation's garbage is the advance's: collected now, not
		// during whichever measure comes next (it ran into the RM's CPU
		// and the wall time of the next snapshot or scrape).
		runtime.GC()
		answer(w)
	})
	mux.HandleFunc("POST /__bench/gc", func(w http.ResponseWriter, r *http.Request) {
		runtime.GC()
		answer(w)
	})
	mux.HandleFunc("POST /__bench/prerendered", func(w http.ResponseWriter, r *http.Request) {
		meter.setPrerendered(r.URL.Query().Get("on") == "true")
		answer(w)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: mux}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	if _, err := fmt.Fprintf(out, "http://%s\n", ln.Addr()); err != nil {
		return err
	}
	// The parent holds our stdin: EOF means it stopped us or died.
	closed := make(chan struct{})
	go func() {
		io.Copy(io.Discard, in)
		close(closed)
	}()
	select {
	case <-closed:
		srv.Close()
		return nil
	case err := <-served:
		return err
	}
}

// rmProcess is the parent's handle on a child mini RM.
type rmProcess struct {
	URL    string
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	waited chan struct{} // closed when the child has been reaped
	once   sync.Once
	ctl    *http.Client
}

// startRMProcess starts a child serving scenario after warm virtual time
// and waits until it listens. The caller must Stop it; ctx's end kills it
// as well.
func startRMProcess(ctx context.Context, scenario string, warm time.Duration) (*rmProcess, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("rm child: %w", err)
	}
	cmd := exec.CommandContext(ctx, exe)
	cmd.Env = append(os.Environ(), rmChildEnv+"="+scenario, rmChildWarmEnv+"="+warm.String())
	cmd.Stderr = os.Stderr
	childProcAttr(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("rm child: start: %w", err)
	}
	p := &rmProcess{cmd: cmd, stdin: stdin, waited: make(chan struct{}), ctl: &http.Client{Timeout: 10 * time.Minute}}
	lines := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		lines <- strings.TrimSpace(line)
		io.Copy(io.Discard, stdout)
	}()
	exited := make(chan error, 1)
	go func() {
		exited <- cmd.Wait()
		close(p.waited)
	}()
	select {
	case line := <-lines:
		if !strings.HasPrefix(line, "http://") {
			p.Stop()
			return nil, fmt.Errorf("rm child: said %q, not its address", line)
		}
		p.URL = line
		return p, nil
	case err := <-exited:
		p.Stop()
		return nil, fmt.Errorf("rm child exited before serving: %v", err)
	case <-ctx.Done():
		p.Stop()
		return nil, fmt.Errorf("rm child: %w", ctx.Err())
	}
}

// Stop kills the child (and its process group) and reaps it; safe to call
// more than once and after the child died.
func (p *rmProcess) Stop() {
	p.once.Do(func() {
		p.stdin.Close()
		killChild(p.cmd)
		<-p.waited
	})
}

// Pid is the child's process id.
func (p *rmProcess) Pid() int { return p.cmd.Process.Pid }

func (p *rmProcess) control(method, path string) (rmReading, error) {
	req, err := http.NewRequest(method, p.URL+"/__bench/"+path, nil)
	if err != nil {
		return rmReading{}, err
	}
	resp, err := p.ctl.Do(req)
	if err != nil {
		return rmReading{}, fmt.Errorf("rm child %s: %w", path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return rmReading{}, fmt.Errorf("rm child %s: HTTP %d: %s", path, resp.StatusCode, strings.TrimSpace(string(b)))
	}
	var r rmReading
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return rmReading{}, fmt.Errorf("rm child %s: %w", path, err)
	}
	return r, nil
}

// Meter reads the child's cumulative meter.
func (p *rmProcess) Meter() (rmReading, error) { return p.control(http.MethodGet, "meter") }

// Reset zeroes the child's meter.
func (p *rmProcess) Reset() (rmReading, error) { return p.control(http.MethodPost, "reset") }

// Advance runs the child's virtual time forward by d.
func (p *rmProcess) Advance(d time.Duration) (rmReading, error) {
	return p.control(http.MethodPost, "advance?by="+d.String())
}

// Prerendered switches the child's render cache on or off (off drops it).
func (p *rmProcess) Prerendered(on bool) error {
	_, err := p.control(http.MethodPost, fmt.Sprintf("prerendered?on=%t", on))
	return err
}

// metered runs f under measure (wall time and this process's peak heap:
// the client's alone) and reports what the child did meanwhile. The child
// first collects its garbage, as measure does this process's: a measure
// pays for what it renders, not for the GC debt of the one before (the
// exporter's 49 MiB scrape ran into the next snapshot's RM CPU).
func (p *rmProcess) metered(f func() error) (Measured, rmReading, error) {
	before, err := p.control(http.MethodPost, "gc")
	if err != nil {
		return Measured{}, rmReading{}, err
	}
	meas, ferr := measure(f)
	after, err := p.Meter()
	if err != nil {
		return meas, rmReading{}, errors.Join(ferr, err)
	}
	return meas, after.sub(before), ferr
}
