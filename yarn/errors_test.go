package yarn

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// Each way a cluster misbehaves gives an error naming the endpoint and
// what was wrong (issue 4), or — for unknown fields — no error at all.
func TestBadInput(t *testing.T) {
	nodesPath := "/ws/v1/cluster/nodes"
	const okNodes = `{"nodes":{"node":[{"id":"n1:8041","nodeHostName":"n1","rack":"/r1","state":"RUNNING","totalResource":{"memory":8192,"vCores":4}}]}}`
	cases := []struct {
		name    string
		handler http.HandlerFunc
		cfg     func(*Config)
		want    []string // substrings of the error; nil: success
	}{
		{"401", status(401, "text/plain", "Authentication required"), nil, []string{nodesPath, "401"}},
		{"403", status(403, "application/json", `{"RemoteException":{"exception":"ForbiddenException","message":"User yarn-sidecar is not authorized","javaClassName":"org.apache.hadoop.yarn.webapp.ForbiddenException"}}`), nil,
			[]string{nodesPath, "403", "not authorized"}},
		{"RemoteException 400", status(400, "application/json", `{"RemoteException":{"exception":"BadRequestException","message":"java.lang.Exception: bad query","javaClassName":"x"}}`), nil,
			[]string{nodesPath, "bad query"}},
		{"HTML login page", status(200, "text/html", "<html><body><form>Login</form></body></html>"), nil, []string{nodesPath, "expected JSON", "text/html"}},
		{"truncated JSON", status(200, "application/json", `{"nodes":{"node":[{"id":"n1:8041","rack":`), nil, []string{nodesPath, "decode JSON"}},
		{"over the size cap", status(200, "application/json", okNodes), func(c *Config) { c.MaxResponseBytes = 16 }, []string{nodesPath, "16"}},
		{"unknown fields ignored", status(200, "application/json", `{"nodes":{"node":[{"id":"n1:8041","nodeHostName":"n1","rack":"/r1","state":"RUNNING","someFutureField":{"x":1}}]},"extra":true}`), nil, nil},
		{"missing node id", status(200, "application/json", `{"nodes":{"node":[{"nodeHostName":"n1","rack":"/r1","state":"RUNNING"}]}}`), nil, []string{nodesPath, "no id"}},
		{"timeout", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }, func(c *Config) { c.Timeout = 100 * time.Millisecond; c.Retries = -1 },
			[]string{nodesPath, "Timeout"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(c.handler)
			defer srv.Close()
			cfg := Config{RMAddresses: []string{srv.URL}, Retries: -1}
			if c.cfg != nil {
				c.cfg(&cfg)
			}
			cl, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			_, err = cl.Nodes(context.Background())
			if c.want == nil {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func status(code int, contentType, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(code)
		w.Write([]byte(body))
	}
}

// An RM that refuses connections is named in the error.
func TestRMDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := "http://" + ln.Addr().String()
	ln.Close()
	cl, _ := New(Config{RMAddresses: []string{addr}, Retries: -1})
	_, err = cl.Nodes(context.Background())
	if err == nil || !strings.Contains(err.Error(), addr) || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("RM down: %v", err)
	}
}

// RM HA: the first RM is the standby (it answers with the standby page),
// the second is active; the call succeeds and the client remembers it.
func TestStandbyFailover(t *testing.T) {
	standby := httptest.NewServer(status(200, "text/plain", "This is standby RM. The redirect url is: http://rm2:8088/"))
	defer standby.Close()
	active := httptest.NewServer(status(200, "application/json", `{"nodes":{"node":[{"id":"n1:8041","nodeHostName":"n1","rack":"/r1","state":"RUNNING"}]}}`))
	defer active.Close()
	cl, _ := New(Config{RMAddresses: []string{standby.URL, active.URL}, Retries: -1})
	nodes, err := cl.Nodes(context.Background())
	if err != nil || len(nodes) != 1 {
		t.Fatalf("failover: %v %v", nodes, err)
	}
	if cl.ActiveRM() != active.URL {
		t.Fatalf("active RM %s, want %s", cl.ActiveRM(), active.URL)
	}
}

// A finished app's AM is gone: the proxy answers 404 and the job is read
// from JobHistory instead.
func TestFinishedAMFallsBackToJobHistory(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/proxy/application_1_0001/ws/v1/mapreduce/jobs", func(w http.ResponseWriter, r *http.Request) {
		status(404, "application/json", `{"RemoteException":{"exception":"NotFoundException","message":"app gone","javaClassName":"x"}}`)(w, r)
	})
	mux.HandleFunc("/ws/v1/history/mapreduce/jobs/job_1_0001", status(200, "application/json",
		`{"job":{"id":"job_1_0001","name":"sort","state":"SUCCEEDED","startTime":1000,"finishTime":9000,"mapsTotal":10,"mapsCompleted":10,"reducesTotal":1,"reducesCompleted":1}}`))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	cl, _ := New(Config{RMAddresses: []string{srv.URL}, JHSAddress: srv.URL, Retries: -1})
	j, err := cl.RunningJob(context.Background(), cluster.App{ID: "application_1_0001", TrackingURL: srv.URL + "/proxy/application_1_0001/"})
	if err != nil {
		t.Fatalf("fallback to JobHistory: %v", err)
	}
	if j.State != "SUCCEEDED" || j.MapsCompleted != 10 {
		t.Fatalf("job from JobHistory: %+v", j)
	}
	// Without a JobHistory address the 404 surfaces, naming the AM path.
	cl2, _ := New(Config{RMAddresses: []string{srv.URL}, Retries: -1})
	_, err = cl2.RunningJob(context.Background(), cluster.App{ID: "application_1_0001", TrackingURL: srv.URL + "/proxy/application_1_0001/"})
	var re *RemoteError
	if !errors.As(err, &re) || re.Status != 404 || !strings.Contains(err.Error(), "/proxy/application_1_0001") {
		t.Fatalf("no JobHistory: %v", err)
	}
}

// An answer that arrived whole but is not usable JSON is not asked for
// again (the same server would send the same page); a 5xx is.
func TestNoRetryOfUnusableAnswers(t *testing.T) {
	for _, c := range []struct {
		name string
		h    http.HandlerFunc
		want int64
	}{
		{"truncated JSON", status(200, "application/json", `{"nodes":`), 1},
		{"HTML page", status(200, "text/html", "<html>login</html>"), 1},
		{"503", status(503, "text/plain", "busy"), 3},
	} {
		var n atomic.Int64
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { n.Add(1); c.h(w, r) }))
		cl, _ := New(Config{RMAddresses: []string{srv.URL}})
		if _, err := cl.Nodes(context.Background()); err == nil {
			t.Errorf("%s: no error", c.name)
		}
		srv.Close()
		if n.Load() != c.want {
			t.Errorf("%s: %d requests, want %d", c.name, n.Load(), c.want)
		}
	}
}
