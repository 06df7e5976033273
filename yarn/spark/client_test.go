package spark

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

func TestNewHistoryAddress(t *testing.T) {
	cases := []struct {
		in, want string
		bad      bool
	}{
		{in: "hs:18080", want: "http://hs:18080"}, // Spark's own form: no scheme
		{in: "https://hs:18480/", want: "https://hs:18480"},
		{in: "", want: ""},
		{in: "ftp://hs:1", bad: true},
		{in: "http://hs:18080/some/path", bad: true},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			c, err := New(Config{HistoryAddress: tc.in})
			if tc.bad {
				if err == nil || !strings.Contains(err.Error(), tc.in) {
					t.Fatalf("err = %v, want one naming %q", err, tc.in)
				}
				return
			}
			if err != nil || c.history != tc.want {
				t.Fatalf("history %q, err %v; want %q", c.history, err, tc.want)
			}
		})
	}
}

func TestSourcesAndIDs(t *testing.T) {
	c, err := New(Config{ProxyAddress: func() string { return "http://rm2:8088/" }, HistoryAddress: "hs:18080"})
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.Running("application_1_0001")
	if err != nil || r.String() != "http://rm2:8088/proxy/application_1_0001/api/v1/applications/application_1_0001" || !r.Proxied() {
		t.Errorf("running = %v, %v", r, err)
	}
	h, err := c.History("application_1_0001", "1")
	if err != nil || h.String() != "http://hs:18080/api/v1/applications/application_1_0001/1" || h.Proxied() {
		t.Errorf("history = %v, %v", h, err)
	}
	for _, bad := range []string{"", "a/b", "a?x", "a b"} {
		if _, err := c.Running(bad); err == nil {
			t.Errorf("Running(%q): no error", bad)
		}
	}
	none, _ := New(Config{})
	if _, err := none.History("x", ""); err == nil || !strings.Contains(err.Error(), "spark.yarn.historyServer.address") {
		t.Errorf("no history address: err %v", err)
	}
	if _, err := none.Running("x"); err == nil {
		t.Error("no proxy: no error")
	}
}

// A finished app's proxy answers a redirect (to the History Server's UI)
// or a page; the client says ErrNotRunning rather than decoding it.
func TestProxyNotRunning(t *testing.T) {
	cases := map[string]http.HandlerFunc{
		"redirect": func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "http://hs:18080/history/application_1_0001/1", http.StatusFound)
		},
		"404": func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) },
		"html": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte("<html>"))
		},
	}
	for name, h := range cases {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(h)
			defer srv.Close()
			c, _ := New(Config{ProxyAddress: func() string { return srv.URL }, Retries: -1})
			src, _ := c.Running("application_1_0001")
			err := c.Executors(context.Background(), src, false, func(*Executor) error { return nil })
			if !errors.Is(err, ErrNotRunning) {
				t.Fatalf("err = %v, want ErrNotRunning", err)
			}
		})
	}
}

func TestRetriesAndErrors(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/v1/applications/flaky/executors":
			if calls.Add(1) == 1 {
				http.Error(w, "busy", http.StatusServiceUnavailable)
				return
			}
			_, _ = w.Write([]byte(`[{"id":"1","hostPort":"n1:1","totalCores":4}]`))
		case "/api/v1/applications/baddate/executors":
			_, _ = w.Write([]byte(`[{"id":"1","addTime":"2019-07-02 21:02:29"}]`))
		case "/api/v1/applications/big/executors":
			_, _ = w.Write([]byte(`[` + strings.Repeat(`{"id":"1"},`, 1000) + `{"id":"2"}]`))
		default:
			http.Error(w, "unknown app: "+r.URL.Path, http.StatusNotFound)
		}
	}))
	defer srv.Close()
	c, _ := New(Config{HistoryAddress: srv.URL, MaxResponseBytes: 4096})
	ctx := context.Background()
	src := func(id string) Source { s, _ := c.History(id, ""); return s }
	var ex []Executor
	if err := c.Executors(ctx, src("flaky"), false, collect(&ex)); err != nil || len(ex) != 1 || ex[0].TotalCores != 4 {
		t.Errorf("after a 503: %v, %+v", err, ex)
	}
	if c.Requests() != 2 {
		t.Errorf("requests = %d, want 2 (one retry)", c.Requests())
	}
	err := c.Executors(ctx, src("baddate"), false, func(*Executor) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "addTime") || !strings.Contains(err.Error(), "2019-07-02 21:02:29") {
		t.Errorf("bad date: err = %v, want one naming addTime and the value", err)
	}
	if err := c.Executors(ctx, src("big"), false, func(*Executor) error { return nil }); !errors.Is(err, ErrTooLarge) {
		t.Errorf("big: err = %v, want ErrTooLarge", err)
	}
	var re *RemoteError
	if err := c.Executors(ctx, src("gone"), false, func(*Executor) error { return nil }); !errors.As(err, &re) || re.Status != 404 || !strings.Contains(re.Message, "unknown app") {
		t.Errorf("404: err = %v", err)
	}
	if err := c.TaskList(ctx, src("x"), StageKey{}, TaskListOptions{SortBy: "fastest"}, nil); err == nil || !strings.Contains(err.Error(), "fastest") {
		t.Errorf("bad sortBy: err = %v", err)
	}
	if _, err := c.TaskSummary(ctx, src("x"), StageKey{}, []float64{1.5}); err == nil {
		t.Error("quantile 1.5: no error")
	}
}
