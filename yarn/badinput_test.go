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
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// The client's one suite of bad input (errors_test.go merged in): servers
// that misbehave. Every failure must name the endpoint it came
// from and say what was wrong; tolerable oddities (unknown fields) must not
// fail. Handlers that stall wait on the request context or a channel the
// test closes, so no server goroutine outlives its test.

const (
	bNodes   = "/ws/v1/cluster/nodes"
	bSched   = "/ws/v1/cluster/scheduler"
	bApps    = "/ws/v1/cluster/apps"
	bLabels  = "/ws/v1/cluster/get-node-labels"
	bVersion = "/ws/v1/cluster/scheduler-conf/version"
	bAppID   = "application_1326232085508_0004"
	bAMJobs  = "/proxy/" + bAppID + "/ws/v1/mapreduce/jobs"
	bJHSRoot = "/ws/v1/history/mapreduce"
	bJHSJobs = bJHSRoot + "/jobs"
)

// badCall is one client call and the endpoint path it reads first.
type badCall struct {
	name, path string
	run        func(ctx context.Context, c *Client, srvURL string) error
}

func runningApp(srvURL string) cluster.App {
	return cluster.App{ID: bAppID, Type: "MAPREDUCE", State: cluster.AppRunning, TrackingURL: srvURL + "/proxy/" + bAppID + "/"}
}

var badCalls = []badCall{
	{"nodes", bNodes, func(ctx context.Context, c *Client, _ string) error { _, err := c.Nodes(ctx); return err }},
	{"scheduler", bSched, func(ctx context.Context, c *Client, _ string) error { _, err := c.Queues(ctx); return err }},
	{"apps", bApps, func(ctx context.Context, c *Client, _ string) error { _, err := c.Apps(ctx, "RUNNING"); return err }},
	{"node labels", bLabels, func(ctx context.Context, c *Client, _ string) error { _, err := c.NodeLabels(ctx); return err }},
	{"conf version", bVersion, func(ctx context.Context, c *Client, _ string) error { _, err := c.ConfVersion(ctx); return err }},
	{"AM jobs", bAMJobs, func(ctx context.Context, c *Client, u string) error {
		_, err := c.RunningJob(ctx, runningApp(u))
		return err
	}},
	{"JobHistory jobs", bJHSJobs, func(ctx context.Context, c *Client, _ string) error {
		_, err := c.FinishedJobs(ctx, time.Time{})
		return err
	}},
}

// reply answers with a status, a content type and a body.
func reply(code int, contentType, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if contentType != "" {
			w.Header().Set("Content-Type", contentType)
		}
		w.WriteHeader(code)
		w.Write([]byte(body))
	}
}

func newBadClient(t *testing.T, cfg Config) *Client {
	t.Helper()
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func wantErr(t *testing.T, err error, want ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want one mentioning %q", want)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not mention %q", err, w)
		}
	}
}

// Each misbehaviour, served at each endpoint the client reads.
func TestMisbehavingEndpoints(t *testing.T) {
	const jettyLogin = `<html><head><meta http-equiv="Content-Type" content="text/html;charset=utf-8"/><title>Error 401 Authentication required</title></head>` +
		`<body><h2>HTTP ERROR 401</h2><p>Problem accessing /ws/v1/cluster/nodes. Reason:<pre>    Authentication required</pre></p></body></html>`
	const loginPage = `<html><head><title>Sign in</title></head><body><form action="/login" method="post">` +
		`<input name="username"/><input name="password" type="password"/><button>login</button></form></body></html>`
	big := `{"pad":"` + strings.Repeat("x", 4096) + `"}`
	cases := []struct {
		name    string
		handler func(release <-chan struct{}) http.HandlerFunc
		cfg     func(*Config)
		want    []string // besides the endpoint path
		status  int      // the *RemoteError status; 0: not a RemoteError
		is      error    // errors.Is target, if any
		hits    int32    // requests the endpoint must have seen; 0: don't check
		atMost  bool     // hits is a ceiling: a loaded machine may time out before the request lands
	}{
		{name: "401 SPNEGO challenge",
			handler: func(<-chan struct{}) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("WWW-Authenticate", "Negotiate")
					reply(401, "text/html;charset=iso-8859-1", jettyLogin)(w, r)
				}
			},
			want: []string{"HTTP 401", "Authentication required"}, status: 401, hits: 1},
		{name: "403 RemoteException",
			handler: func(<-chan struct{}) http.HandlerFunc {
				return reply(403, "application/json", `{"RemoteException":{"exception":"ForbiddenException","message":"java.lang.Exception: User yarn-sidecar is not authorized to view the resource","javaClassName":"org.apache.hadoop.yarn.webapp.ForbiddenException"}}`)
			},
			want: []string{"HTTP 403", "ForbiddenException", "not authorized"}, status: 403, hits: 1},
		{name: "403 with an empty body", // MapredAppMasterRest.md's "Unauthorized Error Response"
			handler: func(<-chan struct{}) http.HandlerFunc { return reply(403, "application/json", "") },
			want:    []string{"HTTP 403"}, status: 403, hits: 1},
		{name: "400 RemoteException (JSON)",
			handler: func(<-chan struct{}) http.HandlerFunc {
				return reply(400, "application/json", `{"RemoteException":{"exception":"BadRequestException","message":"java.lang.Exception: Invalid application-state BOGUS","javaClassName":"org.apache.hadoop.yarn.webapp.BadRequestException"}}`)
			},
			want: []string{"HTTP 400", "BadRequestException", "Invalid application-state BOGUS"}, status: 400, hits: 1},
		{name: "400 RemoteException (XML)", // MapredAppMasterRest.md's "Bad Request Error Response"
			handler: func(<-chan struct{}) http.HandlerFunc {
				return reply(400, "application/xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><RemoteException><exception>BadRequestException</exception>`+
					`<message>java.lang.Exception: Only 'KILLED' is allowed as a target state.</message><javaClassName>org.apache.hadoop.yarn.webapp.BadRequestException</javaClassName></RemoteException>`)
			},
			want: []string{"HTTP 400", "Only 'KILLED' is allowed"}, status: 400, hits: 1},
		{name: "HTML login page",
			handler: func(<-chan struct{}) http.HandlerFunc { return reply(200, "text/html; charset=utf-8", loginPage) },
			want:    []string{"expected JSON", "text/html", "login page"}, hits: 1}, // an unusable answer is not asked for again
		{name: "HTML labelled as JSON",
			handler: func(<-chan struct{}) http.HandlerFunc {
				return reply(200, "application/json", "\n  <!DOCTYPE html>"+loginPage)
			},
			want: []string{"expected JSON", "application/json"}, hits: 1},
		{name: "truncated JSON",
			handler: func(<-chan struct{}) http.HandlerFunc {
				return reply(200, "application/json", `{"nodes":{"node":[{"id":"h1:8041","rack":"/r1","state":"RUN`)
			},
			want: []string{"decode JSON", "unexpected end of JSON input"}, hits: 1},
		{name: "over the size cap",
			handler: func(<-chan struct{}) http.HandlerFunc { return reply(200, "application/json", big) },
			cfg:     func(c *Config) { c.MaxResponseBytes = 64 },
			want:    []string{"size cap", "64 bytes"}, is: ErrTooLarge, hits: 1}, // never retried
		{name: "500 until the retries run out",
			handler: func(<-chan struct{}) http.HandlerFunc {
				return reply(500, "text/plain", "java.lang.NullPointerException\n\tat org.apache.hadoop.yarn.server.resourcemanager.webapp.RMWebServices")
			},
			cfg:  func(c *Config) { c.Retries = 1 },
			want: []string{"HTTP 500", "NullPointerException"}, status: 500, hits: 2},
		{name: "timeout",
			handler: func(release <-chan struct{}) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					select {
					case <-r.Context().Done():
					case <-release:
					}
				}
			},
			cfg:  func(c *Config) { c.Timeout = 200 * time.Millisecond },
			want: []string{"Timeout"}, is: context.DeadlineExceeded, hits: 1, atMost: true}, // never retried
	}
	for _, bc := range cases {
		for _, call := range badCalls {
			t.Run(bc.name+"/"+call.name, func(t *testing.T) {
				t.Parallel()
				release := make(chan struct{})
				var hits atomic.Int32
				h := bc.handler(release)
				mux := http.NewServeMux()
				mux.HandleFunc(call.path, func(w http.ResponseWriter, r *http.Request) { hits.Add(1); h(w, r) })
				srv := httptest.NewServer(mux)
				t.Cleanup(srv.Close)
				t.Cleanup(func() { close(release) }) // runs first: frees a stalled handler
				cfg := Config{RMAddresses: []string{srv.URL}, JHSAddress: srv.URL, Retries: -1}
				if bc.cfg != nil {
					bc.cfg(&cfg)
				}
				c := newBadClient(t, cfg)
				start := time.Now()
				err := call.run(context.Background(), c, srv.URL)
				wantErr(t, err, append([]string{call.path}, bc.want...)...)
				var re *RemoteError
				switch {
				case bc.status != 0 && (!errors.As(err, &re) || re.Status != bc.status):
					t.Errorf("want a *RemoteError with status %d, got %#v", bc.status, err)
				case bc.status == 0 && errors.As(err, &re):
					t.Errorf("want no *RemoteError, got %#v", re)
				}
				if bc.is != nil && !errors.Is(err, bc.is) {
					t.Errorf("error %v is not %v", err, bc.is)
				}
				if got := hits.Load(); bc.hits != 0 && (got > bc.hits || !bc.atMost && got != bc.hits) {
					t.Errorf("%s requested %d times, want %d", call.path, hits.Load(), bc.hits)
				}
				if d := time.Since(start); d > 3*time.Second {
					t.Errorf("took %v", d)
				}
			})
		}
	}
}

// Bodies that are JSON but not what the client needs (or more than it
// needs): required fields missing, wrong types, unknown fields.
func TestBadBodies(t *testing.T) {
	type check func(t *testing.T, c *Client, srvURL string)
	errorNaming := func(call func(context.Context, *Client, string) error, want ...string) check {
		return func(t *testing.T, c *Client, u string) {
			wantErr(t, call(context.Background(), c, u), want...)
		}
	}
	nodes := func(ctx context.Context, c *Client, _ string) error { _, err := c.Nodes(ctx); return err }
	apps := func(ctx context.Context, c *Client, _ string) error { _, err := c.Apps(ctx); return err }
	queues := func(ctx context.Context, c *Client, _ string) error { _, err := c.Queues(ctx); return err }
	labels := func(ctx context.Context, c *Client, _ string) error { _, err := c.NodeLabels(ctx); return err }
	version := func(ctx context.Context, c *Client, _ string) error { _, err := c.ConfVersion(ctx); return err }
	running := func(ctx context.Context, c *Client, u string) error {
		_, err := c.RunningJob(ctx, runningApp(u))
		return err
	}

	cases := []struct {
		name  string
		paths map[string]string // path -> JSON body (200, application/json)
		check check
	}{
		{"node without id", map[string]string{bNodes: `{"nodes":{"node":[{"id":"h1:8041","rack":"/r1","state":"RUNNING"},{"nodeHostName":"h2","rack":"/r1","state":"RUNNING"}]}}`},
			errorNaming(nodes, bNodes, "node 1 has no id")},
		{"node memory of the wrong type", map[string]string{bNodes: `{"nodes":{"node":[{"id":"h1:8041","usedMemoryMB":"lots"}]}}`},
			errorNaming(nodes, bNodes, "decode JSON", "usedMemoryMB")},
		{"unknown node fields are ignored", map[string]string{bNodes: `{"nodes":{"node":[{"id":"h1:8041","nodeHostName":"h1","rack":"/r1","state":"RUNNING",` +
			`"usedMemoryMB":1024,"availMemoryMB":3072,"usedVirtualCores":1,"availableVirtualCores":3,"nodeAttributesInfo":{"nodeAttributeInfo":[]},` +
			`"someFutureField":{"nested":[1,2,3]},"nodeLabels":["gpu"]}],"futureListField":true},"clusterWide":42}`},
			func(t *testing.T, c *Client, _ string) {
				ns, err := c.Nodes(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				want := cluster.Node{ID: "h1:8041", Host: "h1", Rack: "/r1", State: cluster.NodeRunning, Partition: "gpu",
					Total: cluster.Resource{MemoryMB: 4096, VCores: 4}, Used: cluster.Resource{MemoryMB: 1024, VCores: 1}}
				if len(ns) != 1 || ns[0].ID != want.ID || ns[0].Host != want.Host || ns[0].Rack != want.Rack || ns[0].State != want.State ||
					ns[0].Partition != want.Partition || ns[0].Total != want.Total || ns[0].Used != want.Used {
					t.Fatalf("nodes %+v, want [%+v]", ns, want)
				}
			}},
		{"no nodes", map[string]string{bNodes: `{"nodes":null}`},
			func(t *testing.T, c *Client, _ string) {
				if ns, err := c.Nodes(context.Background()); err != nil || len(ns) != 0 {
					t.Fatalf("nodes %v, %v", ns, err)
				}
			}},
		{"app without id", map[string]string{bApps: `{"apps":{"app":[{"name":"sort","queue":"default","state":"RUNNING"}]}}`},
			errorNaming(apps, bApps, "app 0 has no id")},
		{"unknown app fields are ignored", map[string]string{bApps: `{"apps":{"app":[{"id":"application_1_0001","queue":"root.etl","state":"RUNNING","priority":3,` +
			`"allocatedMB":2048,"allocatedVCores":2,"resourceInfo":{"resourceUsagesByPartition":[]},"timeouts":{"timeout":[]},"someFutureField":"x"}]}}`},
			func(t *testing.T, c *Client, _ string) {
				as, err := c.Apps(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				if len(as) != 1 || as[0].ID != "application_1_0001" || as[0].Queue != "root.etl" || as[0].Priority != 3 ||
					as[0].Allocated != (cluster.Resource{MemoryMB: 2048, VCores: 2}) {
					t.Fatalf("apps %+v", as)
				}
			}},
		{"scheduler without schedulerInfo", map[string]string{bSched: `{"scheduler":{}}`},
			errorNaming(queues, bSched, "no schedulerInfo")},
		{"queue list of the wrong type", map[string]string{bSched: `{"scheduler":{"schedulerInfo":{"type":"capacityScheduler","queueName":"root","queues":{"queue":"a,b"}}}}`},
			errorNaming(queues, bSched, "decode JSON")},
		{"node labels of the wrong type", map[string]string{bLabels: `{"nodeLabelsInfo":{"nodeLabelInfo":"gpu"}}`},
			errorNaming(labels, bLabels, "nodeLabelInfo")},
		{"conf version that is no number", map[string]string{bVersion: `{"versionID":"v7"}`},
			errorNaming(version, bVersion, "versionID", "v7")},
		{"conf version as a string (Jersey)", map[string]string{bVersion: `{"versionID":"7"}`},
			func(t *testing.T, c *Client, _ string) {
				if v, err := c.ConfVersion(context.Background()); err != nil || v != 7 {
					t.Fatalf("version %d, %v", v, err)
				}
			}},
		{"AM with no job", map[string]string{bAMJobs: `{"jobs":{"job":[]}}`},
			errorNaming(running, bAMJobs, "no job")},
		{"AM tasks answer HTML", map[string]string{
			bAMJobs:                                  `{"jobs":{"job":[{"id":"job_1326232085508_4_4","state":"RUNNING","mapsTotal":2}]}}`,
			bAMJobs + "/job_1326232085508_4_4/tasks": `<html><body>login</body></html>`},
			errorNaming(running, bAMJobs+"/job_1326232085508_4_4/tasks", "expected JSON")},
		{"JobHistory task attempts truncated", map[string]string{
			bJHSJobs:                    `{"jobs":{"job":[{"id":"job_1_1","queue":"default","state":"SUCCEEDED"}]}}`,
			bJHSJobs + "/job_1_1/tasks": `{"tasks":{"task":[{"id":"task_1_1_m_0","type":"MAP","state":"SUCCEEDED"}]}}`,
			bJHSJobs + "/job_1_1/tasks/task_1_1_m_0/attempts": `{"taskAttempts":{"taskAttempt":[{"id":"attempt_1_1_m_0_0",`},
			errorNaming(func(ctx context.Context, c *Client, _ string) error {
				_, err := c.FinishedJobs(ctx, time.Time{})
				return err
			},
				bJHSJobs+"/job_1_1/tasks/task_1_1_m_0/attempts", "decode JSON")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mux := http.NewServeMux()
			for p, body := range tc.paths {
				mux.HandleFunc(p, reply(200, "application/json", body))
			}
			srv := httptest.NewServer(mux)
			defer srv.Close()
			tc.check(t, newBadClient(t, Config{RMAddresses: []string{srv.URL}, JHSAddress: srv.URL, Retries: -1}), srv.URL)
		})
	}
}

// An RM that is down (nothing listens) is named with the cause; with RM HA
// the client moves on to the other RM and remembers it.
func TestRMDownBadInput(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + ln.Addr().String()
	ln.Close()

	c := newBadClient(t, Config{RMAddresses: []string{down}, Retries: 1})
	start := time.Now()
	_, err = c.Nodes(context.Background())
	wantErr(t, err, down+bNodes, "connection refused")
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("refused connection took %v", d)
	}

	var hits atomic.Int32
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		reply(200, "application/json", `{"nodes":{"node":[{"id":"h1:8041","state":"RUNNING"}]}}`)(w, r)
	}))
	defer up.Close()
	c = newBadClient(t, Config{RMAddresses: []string{down, up.URL}, Retries: -1})
	for i := 0; i < 2; i++ {
		ns, err := c.Nodes(context.Background())
		if err != nil || len(ns) != 1 || ns[0].ID != "h1:8041" {
			t.Fatalf("call %d with the first RM down: %v, %v", i, ns, err)
		}
	}
	if c.ActiveRM() != up.URL || hits.Load() != 2 {
		t.Fatalf("active RM %s (want %s), %d hits", c.ActiveRM(), up.URL, hits.Load())
	}
}

// RM HA: the first address is the standby. Hadoop's RMWebAppFilter makes a
// standby answer REST calls with a 307 to the active RM when it knows it,
// with a 307 carrying only a Refresh header ("Can not find any active RM")
// when it does not, and with a 200 text page ("There is no active RM right
// now.") when it gives up; a standby that is still starting answers 503.
// In every case the call must succeed against the second, active, RM.
func TestStandbyRM(t *testing.T) {
	const nodesJSON = `{"nodes":{"node":[{"id":"h1:8041","nodeHostName":"h1","rack":"/r1","state":"RUNNING"}]}}`
	cases := []struct {
		name string
		// standby answers; active is the active RM's URL
		standby func(active string) http.HandlerFunc
		// remembered: the client then talks to the active RM directly
		remembered bool
	}{
		{"307 to the active RM", func(active string) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				to := active + r.URL.RequestURI()
				w.Header().Set("Location", to)
				w.Header().Set("Content-Type", "text/plain;charset=utf-8")
				w.WriteHeader(http.StatusTemporaryRedirect)
				w.Write([]byte("This is standby RM. The redirect url is: " + to + "\n"))
			}
		}, false},
		{"307 without a Location: no active RM known", func(string) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Refresh", "1;url="+r.URL.Path+"?next-refresh-interval=1")
				w.Header().Set("Content-Type", "text/plain;charset=utf-8")
				w.WriteHeader(http.StatusTemporaryRedirect)
				w.Write([]byte("Can not find any active RM. Will retry in next 1 seconds.\nHA Zookeeper Connection State: CONNECTING\n"))
			}
		}, true},
		{"200 text page: no active RM", func(string) http.HandlerFunc {
			return reply(200, "text/plain;charset=utf-8", "There is no active RM right now.\nHA Zookeeper Connection State: CONNECTED\n")
		}, true},
		{"200 text page: the standby names the active RM", func(string) http.HandlerFunc {
			return reply(200, "text/plain", "This is standby RM. The redirect url is: http://rm2:8088/")
		}, true},
		{"503 while the standby starts", func(string) http.HandlerFunc {
			return reply(503, "text/html", "<html><body>Service Unavailable</body></html>")
		}, true},
		{"standby page with a 4xx", func(string) http.HandlerFunc {
			return reply(403, "text/plain", "This is standby RM. Redirecting to the current active RM")
		}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var activeHits, standbyHits atomic.Int32
			var gotQuery atomic.Value
			active := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				activeHits.Add(1)
				gotQuery.Store(r.URL.RawQuery)
				reply(200, "application/json", nodesJSON)(w, r)
			}))
			defer active.Close()
			h := tc.standby(active.URL)
			standby := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { standbyHits.Add(1); h(w, r) }))
			defer standby.Close()
			c := newBadClient(t, Config{RMAddresses: []string{standby.URL, active.URL}, User: "yarn-sidecar", Retries: -1})
			for i := 0; i < 2; i++ {
				ns, err := c.Nodes(context.Background())
				if err != nil || len(ns) != 1 || ns[0].ID != "h1:8041" {
					t.Fatalf("call %d: nodes %v, err %v", i, ns, err)
				}
			}
			if activeHits.Load() != 2 {
				t.Errorf("the active RM answered %d calls, want 2", activeHits.Load())
			}
			if q, _ := gotQuery.Load().(string); !strings.Contains(q, "user.name=yarn-sidecar") {
				t.Errorf("the active RM got query %q: user.name lost", q)
			}
			if tc.remembered {
				if c.ActiveRM() != active.URL || standbyHits.Load() != 1 {
					t.Errorf("active RM %s after failover (want %s); the standby saw %d calls, want 1", c.ActiveRM(), active.URL, standbyHits.Load())
				}
			}
		})
	}
}

// A finished app's AM is gone and the RM proxy answers 404: the job comes
// from JobHistory; when JobHistory cannot help either, the error says so
// and names both endpoints.
func TestFinishedAppAM(t *testing.T) {
	const jobID = "job_1326232085508_0004" // "job_" + the app id's tail
	const histJob = `{"job":{"id":"` + jobID + `","name":"Sleep job","queue":"default","user":"user1","state":"SUCCEEDED",` +
		`"startTime":1326238769379,"finishTime":1326238829000,"mapsTotal":1,"mapsCompleted":1,"reducesTotal":1,"reducesCompleted":1}}`
	const notFound = `{"RemoteException":{"exception":"NotFoundException","message":"java.lang.Exception: job, ` + jobID + `, is not found","javaClassName":"org.apache.hadoop.yarn.webapp.NotFoundException"}}`
	amGone := reply(404, "text/plain", "Application "+bAppID+" could not be found")
	amGoneJSON := reply(404, "application/json", `{"RemoteException":{"exception":"NotFoundException","message":"app gone","javaClassName":"x"}}`)
	// Hadoop 3.3.6: the proxy of a finished app answers 302 (text/html) to
	// a JobHistory *web* page (recorded in testdata/real-3.3.6/finished).
	amRedirected := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", "http://jhs:19888/jobhistory/job/job_1326232085508_0004/ws/v1/mapreduce/jobs")
		reply(302, "text/html;charset=utf-8", "<html><body>Content has moved</body></html>")(w, r)
	}
	cases := []struct {
		name    string
		am, jhs http.HandlerFunc // nil jhs: no JobHistory address configured
		noTrack bool             // the app has no trackingUrl: the client builds the RM proxy URL
		check   func(t *testing.T, j *cluster.Job, err error)
	}{
		{"404 from the AM: JobHistory answers", amGone, reply(200, "application/json", histJob), false,
			func(t *testing.T, j *cluster.Job, err error) {
				if err != nil {
					t.Fatal(err)
				}
				if j.ID != jobID || j.State != "SUCCEEDED" || j.MapsCompleted != 1 || j.ReducesCompleted != 1 ||
					!j.FinishTime.Equal(time.UnixMilli(1326238829000)) || len(j.RunningMaps) != 0 {
					t.Fatalf("job from JobHistory %+v", j)
				}
			}},
		{"404 RemoteException (JSON) from the AM: JobHistory answers", amGoneJSON, reply(200, "application/json", histJob), false,
			func(t *testing.T, j *cluster.Job, err error) {
				if err != nil || j.ID != jobID || j.State != "SUCCEEDED" {
					t.Fatalf("job %+v, %v", j, err)
				}
			}},
		{"302 to a JobHistory web page: JobHistory's REST API answers", amRedirected, reply(200, "application/json", histJob), false,
			func(t *testing.T, j *cluster.Job, err error) {
				if err != nil || j.ID != jobID || j.MapsCompleted != 1 {
					t.Fatalf("job %+v, %v", j, err)
				}
			}},
		{"302 from the AM and 404 from JobHistory", amRedirected, reply(404, "application/json", notFound), false,
			func(t *testing.T, _ *cluster.Job, err error) {
				wantErr(t, err, "AM of "+bAppID+" gone (302 to http://jhs:19888/jobhistory/", bJHSJobs+"/"+jobID, "HTTP 404")
			}},
		{"404 from the AM, no trackingUrl: JobHistory answers", amGone, reply(200, "application/json", histJob), true,
			func(t *testing.T, j *cluster.Job, err error) {
				if err != nil || j.ID != jobID {
					t.Fatalf("job %+v, %v", j, err)
				}
			}},
		{"404 from the AM and from JobHistory", amGone, reply(404, "application/json", notFound), false,
			func(t *testing.T, _ *cluster.Job, err error) {
				wantErr(t, err, "AM of "+bAppID+" gone (404)", bJHSJobs+"/"+jobID, "HTTP 404", "is not found")
			}},
		{"404 from the AM, JobHistory down", amGone, reply(503, "text/plain", "JobHistory is starting"), false,
			func(t *testing.T, _ *cluster.Job, err error) {
				wantErr(t, err, "AM of "+bAppID+" gone (404)", bJHSJobs+"/"+jobID, "HTTP 503")
			}},
		{"404 from the AM, no JobHistory address", amGone, nil, false,
			func(t *testing.T, _ *cluster.Job, err error) {
				wantErr(t, err, bAMJobs, "HTTP 404", "could not be found")
				var re *RemoteError
				if !errors.As(err, &re) || re.Status != 404 {
					t.Errorf("want the AM's 404 as a *RemoteError, got %#v", err)
				}
			}},
		{"the proxy serves an HTML page instead", reply(200, "text/html", "<html><body>Application "+bAppID+" has finished</body></html>"),
			reply(200, "application/json", histJob), false,
			func(t *testing.T, _ *cluster.Job, err error) {
				wantErr(t, err, bAMJobs, "expected JSON", "text/html")
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var amHits atomic.Int32
			mux := http.NewServeMux()
			mux.HandleFunc(bAMJobs, func(w http.ResponseWriter, r *http.Request) { amHits.Add(1); tc.am(w, r) })
			if tc.jhs != nil {
				mux.HandleFunc(bJHSJobs+"/"+jobID, tc.jhs)
			}
			srv := httptest.NewServer(mux)
			defer srv.Close()
			cfg := Config{RMAddresses: []string{srv.URL}, Retries: -1}
			if tc.jhs != nil {
				cfg.JHSAddress = srv.URL
			}
			c := newBadClient(t, cfg)
			app := runningApp(srv.URL)
			if tc.noTrack {
				app.TrackingURL = ""
			}
			j, err := c.RunningJob(context.Background(), app)
			tc.check(t, j, err)
			if amHits.Load() != 1 {
				t.Errorf("the AM endpoint saw %d requests, want 1", amHits.Load())
			}
		})
	}
}

// The caller's context bounds the whole call, retries and backoff included.
func TestCallerContextBoundsRetries(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	c := newBadClient(t, Config{RMAddresses: []string{srv.URL}, JHSAddress: srv.URL}) // default 10 s timeout, 2 retries
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.FinishedJobs(ctx, time.Time{})
	wantErr(t, err, bJHSJobs)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error %v does not wrap the context's deadline", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("took %v with a 150 ms context", d)
	}
}

// Writes (PUT/POST) are not retried; their errors name the endpoint and
// carry the RM's message; a rejected mutation is a *MutationRejectedError,
// a file-store RM is ErrConfNotMutable.
func TestWriteErrors(t *testing.T) {
	const appID = "application_1_0001"
	var hits atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc(bApps+"/"+appID+"/queue", func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		reply(403, "application/json", `{"RemoteException":{"exception":"ForbiddenException","message":"java.lang.Exception: User yarn-sidecar not authorized to move app","javaClassName":"org.apache.hadoop.yarn.webapp.ForbiddenException"}}`)(w, r)
	})
	mux.HandleFunc(bApps+"/"+appID+"/priority", func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		reply(500, "text/plain", "java.io.IOException: state store down")(w, r)
	})
	mux.HandleFunc("/ws/v1/cluster/scheduler-conf", func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		reply(400, "text/plain", "Failed to re-init queues : Illegal capacity of 120.0 for queue root.a")(w, r)
	})
	mux.HandleFunc("/ws/v1/cluster/scheduler-conf/validate", func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		reply(400, "application/json", `{"RemoteException":{"exception":"BadRequestException","message":"Configuration change validation only supported by MutableConfScheduler.","javaClassName":"org.apache.hadoop.yarn.webapp.BadRequestException"}}`)(w, r)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	c := newBadClient(t, Config{RMAddresses: []string{srv.URL}})
	ctx := context.Background()

	wantErr(t, c.MoveApp(ctx, appID, "root.b"), bApps+"/"+appID+"/queue", "HTTP 403", "not authorized to move app")
	_, err := c.SetAppPriority(ctx, appID, 5)
	wantErr(t, err, bApps+"/"+appID+"/priority", "HTTP 500", "state store down")

	m := schedconf.Mutation{GlobalUpdates: map[string]string{"yarn.scheduler.capacity.root.a.capacity": "120"}}
	err = c.UpdateConf(ctx, m)
	var mr *MutationRejectedError
	if !errors.As(err, &mr) || mr.Status != 400 || !strings.Contains(err.Error(), "Illegal capacity of 120.0") {
		t.Errorf("rejected mutation: %#v", err)
	}
	err = c.ValidateMutation(ctx, m)
	if !errors.Is(err, ErrConfNotMutable) || !strings.Contains(err.Error(), "/ws/v1/cluster/scheduler-conf/validate") {
		t.Errorf("file-store RM: %v", err)
	}
	if hits.Load() != 4 {
		t.Errorf("%d requests for 4 writes: a write was retried", hits.Load())
	}
}
