package yarn

import (
	"bufio"
	"bytes"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Replaying the responses of a real Hadoop 3.3.6 cluster recorded in
// testdata/real-3.3.6 (copied from the project's shared recordings; see its
// README.md): NAME.headers holds the status line and headers as sent,
// NAME.body the exact body. The preemption/ files are bodies only (200,
// JSON).

const realDir = "testdata/real-3.3.6/"

// recorded is one recorded response.
type recorded struct {
	status int
	header http.Header
	body   []byte
}

// loadRecorded reads NAME.headers + NAME.body, or a bare .json body.
func loadRecorded(t *testing.T, name string) recorded {
	t.Helper()
	if strings.HasSuffix(name, ".json") {
		b, err := os.ReadFile(realDir + name)
		if err != nil {
			t.Fatal(err)
		}
		return recorded{status: 200, header: http.Header{"Content-Type": {"application/json;charset=utf-8"}}, body: b}
	}
	body, err := os.ReadFile(realDir + name + ".body")
	if err != nil {
		t.Fatal(err)
	}
	hf, err := os.ReadFile(realDir + name + ".headers")
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(hf))
	if !sc.Scan() {
		t.Fatalf("%s.headers: no status line", name)
	}
	f := strings.Fields(sc.Text()) // HTTP/1.1 307 Temporary Redirect
	if len(f) < 2 {
		t.Fatalf("%s.headers: status line %q", name, sc.Text())
	}
	status, err := strconv.Atoi(f[1])
	if err != nil {
		t.Fatalf("%s.headers: status line %q", name, sc.Text())
	}
	h := http.Header{}
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if line == "" {
			break
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			t.Fatalf("%s.headers: line %q", name, line)
		}
		h.Add(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	return recorded{status: status, header: h, body: body}
}

// serve writes the recorded response; rewrite (may be nil) maps the
// recorded RM address in Location and Refresh to a test server's.
func (r recorded) serve(w http.ResponseWriter, rewrite func(string) string) {
	for k, vs := range r.header {
		switch k {
		case "Content-Length", "Transfer-Encoding", "Set-Cookie":
			continue
		}
		for _, v := range vs {
			if rewrite != nil && (k == "Location" || k == "Refresh") {
				v = rewrite(v)
			}
			w.Header().Add(k, v)
		}
	}
	w.WriteHeader(r.status)
	w.Write(r.body)
}

// replay is a test server answering recorded responses by request path
// (the query is ignored). Requests for unrecorded paths are answered 404
// and listed in Unexpected.
type replay struct {
	*httptest.Server
	mu      sync.Mutex
	routes  map[string]http.HandlerFunc
	hits    map[string]int
	unknown []string
}

func newReplay(t *testing.T) *replay {
	t.Helper()
	rp := &replay{routes: map[string]http.HandlerFunc{}, hits: map[string]int{}}
	rp.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rp.mu.Lock()
		rp.hits[r.Method+" "+r.URL.Path]++
		h, ok := rp.routes[r.URL.Path]
		if !ok {
			rp.unknown = append(rp.unknown, r.Method+" "+r.URL.String())
		}
		rp.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		h(w, r)
	}))
	t.Cleanup(rp.Close)
	return rp
}

// file routes a path to a recorded response.
func (rp *replay) file(t *testing.T, path, name string) {
	t.Helper()
	rec := loadRecorded(t, name)
	rp.handle(path, func(w http.ResponseWriter, _ *http.Request) { rec.serve(w, nil) })
}

func (rp *replay) handle(path string, h http.HandlerFunc) {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	rp.routes[path] = h
}

func (rp *replay) count(methodPath string) int {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	return rp.hits[methodPath]
}

func (rp *replay) unexpected() []string {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	return append([]string(nil), rp.unknown...)
}

// deadRM is an http:// address where nothing listens (a stopped RM).
func deadRM(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := "http://" + ln.Addr().String()
	ln.Close()
	return addr
}

func (rp *replay) total() int {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	n := 0
	for _, h := range rp.hits {
		n += h
	}
	return n
}
