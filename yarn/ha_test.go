package yarn

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// RM HA as a real 3.3.6 pair behaves (testdata/real-3.3.6/ha/): the
// standby answers every REST call but /cluster/info with 307 to the active
// RM (Location: the same path and query on the active), and with 307 +
// Refresh and no Location when no RM is active. The recorded Location names
// http://localhost:8088, the active as the standby saw it; the replay
// points it at the test's active RM.

// haPair is a standby replaying recordings and an active RM test server.
type haPair struct {
	standby, active *replay
}

func newHAPair(t *testing.T) *haPair {
	return &haPair{standby: newReplay(t), active: newReplay(t)}
}

// standbyFile routes a path on the standby to a recorded ha/ answer whose
// Location is rewritten to the active RM.
func (p *haPair) standbyFile(t *testing.T, path, name string) {
	t.Helper()
	rec := loadRecorded(t, name)
	to := p.active.URL
	p.standby.handle(path, func(w http.ResponseWriter, _ *http.Request) {
		rec.serve(w, func(v string) string { return strings.Replace(v, "http://localhost:8088", to, 1) })
	})
}

func (p *haPair) client(t *testing.T) *Client {
	t.Helper()
	c, err := New(Config{RMAddresses: []string{p.standby.URL, p.active.URL}, User: "root", Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// GET through the standby: the 307 is followed to the active RM, which is
// remembered; the next call goes to it directly.
func TestReal336HAGetFollowsStandbyRedirect(t *testing.T) {
	p := newHAPair(t)
	p.standbyFile(t, "/ws/v1/cluster/apps", "ha/p1-rm2-standby_GET_cluster_apps")
	p.standbyFile(t, "/ws/v1/cluster/scheduler-conf/version", "ha/p1-rm2-standby_GET_cluster_scheduler-conf_version")
	p.active.file(t, "/ws/v1/cluster/apps", "running/rm_apps_states_RUNNING")
	p.active.file(t, "/ws/v1/cluster/scheduler-conf/version", "running/rm_scheduler-conf_version")
	c := p.client(t)
	ctx := context.Background()
	apps, err := c.Apps(ctx, "RUNNING")
	if err != nil || len(apps) != 2 {
		t.Fatalf("apps through the standby: %d, %v", len(apps), err)
	}
	if c.ActiveRM() != p.active.URL {
		t.Errorf("active RM %s, want %s", c.ActiveRM(), p.active.URL)
	}
	if v, err := c.ConfVersion(ctx); err != nil || v != 2 {
		t.Errorf("version %d, %v", v, err)
	}
	if n := p.standby.count("GET /ws/v1/cluster/apps"); n != 1 {
		t.Errorf("standby asked for apps %d times, want 1", n)
	}
	if n := p.standby.count("GET /ws/v1/cluster/scheduler-conf/version"); n != 0 {
		t.Errorf("standby asked again after the active RM was known (%d)", n)
	}
}

// PUT through the standby: the 307 is re-sent to the active RM with the
// same method, body, content type and query (user.name once); the
// standby's 307 is never taken for success.
func TestReal336HAPutResent(t *testing.T) {
	m := schedconf.Mutation{UpdateQueue: []schedconf.QueueUpdate{{Queue: "root.crypto", Params: map[string]string{"maximum-capacity": "100"}}}}
	want, err := m.EncodeXML()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		answer string // recorded answer of the active RM; "" = a rejection
	}{
		{"accepted", "mutations/put_valid"},
		{"rejected by the active", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newHAPair(t)
			p.standbyFile(t, "/ws/v1/cluster/scheduler-conf", "ha/p1-rm2-standby_PUT_cluster_scheduler-conf")
			var mu sync.Mutex
			var got []byte
			var gotCT, gotQuery, gotMethod string
			var rec recorded
			if tc.answer != "" {
				rec = loadRecorded(t, tc.answer)
			}
			p.active.handle("/ws/v1/cluster/scheduler-conf", func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				mu.Lock()
				got, gotCT, gotQuery, gotMethod = b, r.Header.Get("Content-Type"), r.URL.RawQuery, r.Method
				mu.Unlock()
				if tc.answer == "" {
					reply(400, "application/json", "Failed to re-init queues : Illegal capacity of 1.1 for children of queue root")(w, r)
					return
				}
				rec.serve(w, nil)
			})
			err := p.client(t).UpdateConf(context.Background(), m)
			if tc.answer != "" && err != nil {
				t.Fatalf("PUT through the standby: %v", err)
			}
			var mr *MutationRejectedError
			if tc.answer == "" && (!errors.As(err, &mr) || !strings.Contains(mr.Message, "Illegal capacity of 1.1")) {
				t.Fatalf("the active RM's rejection: %#v", err)
			}
			mu.Lock()
			defer mu.Unlock()
			if gotMethod != "PUT" || !bytes.Equal(got, want) || gotCT != "application/xml" {
				t.Errorf("the active RM got %s %q (%s), want PUT %q (application/xml)", gotMethod, got, gotCT, want)
			}
			if gotQuery != "user.name=root" {
				t.Errorf("the active RM got query %q, want user.name=root once", gotQuery)
			}
			if p.standby.count("PUT /ws/v1/cluster/scheduler-conf") != 1 || p.active.count("PUT /ws/v1/cluster/scheduler-conf") != 1 {
				t.Errorf("PUTs: standby %d, active %d; want 1 and 1", p.standby.count("PUT /ws/v1/cluster/scheduler-conf"), p.active.count("PUT /ws/v1/cluster/scheduler-conf"))
			}
		})
	}
}

// No active RM (both standbys answer 307 + Refresh, no Location): reads
// and writes fail with ErrNoActiveRM after asking each RM once; the Refresh
// URL is not followed.
func TestReal336HANoActiveRM(t *testing.T) {
	rm1, rm2 := newReplay(t), newReplay(t)
	rm1.file(t, "/ws/v1/cluster/apps", "ha/p5-rm1-standby-noactive_GET_cluster_apps")
	rm2.file(t, "/ws/v1/cluster/apps", "ha/p5-rm2-standby-noactive_GET_cluster_apps")
	rm1.file(t, "/ws/v1/cluster/scheduler-conf", "ha/p5-rm1-standby-noactive_PUT_cluster_scheduler-conf")
	rm2.file(t, "/ws/v1/cluster/scheduler-conf", "ha/p5-rm2-standby-noactive_PUT_cluster_scheduler-conf")
	rm1.file(t, "/ws/v1/cluster/info", "ha/p5-rm1-standby-noactive_GET_cluster_info")
	rm2.file(t, "/ws/v1/cluster/info", "ha/p5-rm2-standby-noactive_GET_cluster_info")
	c, _ := New(Config{RMAddresses: []string{rm1.URL, rm2.URL}, User: "root"}) // default retries: not used on a 307
	ctx := context.Background()
	_, err := c.Apps(ctx, "RUNNING")
	if !errors.Is(err, ErrNoActiveRM) || !strings.Contains(err.Error(), "Can not find any active RM") {
		t.Errorf("GET: %v, want ErrNoActiveRM", err)
	}
	err = c.UpdateConf(ctx, schedconf.Mutation{GlobalUpdates: map[string]string{"yarn.scheduler.capacity.maximum-applications": "10000"}})
	if !errors.Is(err, ErrNoActiveRM) {
		t.Errorf("PUT: %v, want ErrNoActiveRM", err)
	}
	var mr *MutationRejectedError
	if errors.As(err, &mr) {
		t.Errorf("no active RM is not a rejection: %v", err)
	}
	if _, err := c.Info(ctx); !errors.Is(err, ErrNoActiveRM) {
		t.Errorf("info: %v, want ErrNoActiveRM", err)
	}
	for i, rp := range []*replay{rm1, rm2} {
		if rp.count("GET /ws/v1/cluster/apps") != 1 || rp.count("PUT /ws/v1/cluster/scheduler-conf") != 1 {
			t.Errorf("rm%d: %v; want one GET and one PUT", i+1, rp.hits)
		}
		if u := rp.unexpected(); len(u) != 0 {
			t.Errorf("rm%d: unexpected %v (Refresh followed?)", i+1, u)
		}
	}
}

// The standby answers /cluster/info itself (200, STANDBY): Info asks on
// until an RM says ACTIVE.
func TestReal336HAInfoSkipsStandby(t *testing.T) {
	standby, active := newReplay(t), newReplay(t)
	standby.file(t, "/ws/v1/cluster/info", "ha/p1-rm2-standby_GET_cluster_info")
	active.file(t, "/ws/v1/cluster/info", "running/rm_info")
	c, _ := New(Config{RMAddresses: []string{standby.URL, active.URL}, Retries: -1})
	ci, err := c.Info(context.Background())
	if err != nil || ci.HAState != "ACTIVE" || ci.RM != active.URL || ci.HadoopVersion != "3.3.6" {
		t.Fatalf("info %+v, %v", ci, err)
	}
}

// Writes go to the next RM only when nothing can have been applied: the
// first RM refused the connection (stopped).
func TestWriteSkipsStoppedRM(t *testing.T) {
	active := newReplay(t)
	active.file(t, "/ws/v1/cluster/scheduler-conf", "mutations/put_valid")
	c, _ := New(Config{RMAddresses: []string{deadRM(t), active.URL}})
	if err := c.UpdateConf(context.Background(), schedconf.Mutation{GlobalUpdates: map[string]string{"a": "b"}}); err != nil {
		t.Fatal(err)
	}
	if c.ActiveRM() != active.URL || active.count("PUT /ws/v1/cluster/scheduler-conf") != 1 {
		t.Errorf("active %s, PUTs %d", c.ActiveRM(), active.count("PUT /ws/v1/cluster/scheduler-conf"))
	}
}

// Which redirects are followed.
func TestRedirectRules(t *testing.T) {
	for _, tc := range []struct {
		path string
		rest bool
	}{
		{"/ws/v1/cluster/apps", true},
		{"/ws/v1/history/mapreduce/jobs/job_1_1", true},
		{"/proxy/application_1_1/ws/v1/mapreduce/jobs", true},
		{"/jobhistory/job/job_1_1/ws/v1/mapreduce/jobs", false}, // the finished AM's 302
		{"/cluster/app/application_1_1", false},                 // the proxy's 302 after a failover (recorded in ha/INDEX.txt)
		{"/proxy/application_1_1/", false},
		{"/login", false},
	} {
		if got := isRESTPath(tc.path); got != tc.rest {
			t.Errorf("isRESTPath(%q) = %v", tc.path, got)
		}
	}

	rp := newReplay(t)
	redirect := func(code int, to string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Location", to)
			w.Header().Set("Content-Type", "text/html;charset=utf-8")
			w.WriteHeader(code)
		}
	}
	rp.handle("/ws/v1/moved", redirect(302, "/ws/v1/cluster/info"))
	rp.file(t, "/ws/v1/cluster/info", "running/rm_info")
	rp.handle("/ws/v1/put302", redirect(302, "/ws/v1/cluster/info"))
	rp.handle("/ws/v1/loop", redirect(307, "/ws/v1/loop"))
	c, _ := New(Config{RMAddresses: []string{rp.URL}, Retries: -1})
	ctx := context.Background()
	var info map[string]any
	if err := c.getJSON(ctx, rp.URL+"/ws/v1/moved", nil, &info); err != nil || info["clusterInfo"] == nil {
		t.Errorf("GET 302 to a REST path: %v %v", info, err)
	}
	// A 302 turns a PUT into a GET in browsers; the client does not follow.
	var re *RemoteError
	if err := c.do(ctx, "PUT", rp.URL+"/ws/v1/put302", nil, []byte("x"), "text/plain", nil); !errors.As(err, &re) || re.Status != 302 {
		t.Errorf("PUT 302: %#v", err)
	}
	if err := c.getJSON(ctx, rp.URL+"/ws/v1/loop", nil, &info); err == nil || !strings.Contains(err.Error(), "redirects") {
		t.Errorf("redirect loop: %v", err)
	}
	if n := rp.count("GET /ws/v1/loop"); n != maxRedirects+1 {
		t.Errorf("loop followed %d times, want %d", n, maxRedirects+1)
	}
}

// With a standalone web proxy configured, AMs are read through it, not
// through an RM (the RMs do not serve /proxy/ then).
func TestAMThroughStandaloneWebProxy(t *testing.T) {
	rm, proxy := newReplay(t), newReplay(t)
	proxy.file(t, "/proxy/"+realApp4+"/ws/v1/mapreduce/jobs", "running/am_"+realApp4+"_jobs")
	proxy.file(t, "/proxy/"+realApp4+"/ws/v1/mapreduce/jobs/"+realJob4+"/tasks", "running/am_"+realApp4+"_tasks")
	c, err := New(Config{RMAddresses: []string{rm.URL}, WebProxyAddress: proxy.URL + "/", Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	j, err := c.RunningJob(context.Background(), cluster.App{ID: realApp4, Type: "MAPREDUCE"})
	if err != nil || j.ID != realJob4 || len(j.RunningMaps) != 6 {
		t.Fatalf("job %+v, %v", j, err)
	}
	if n := rm.total(); n != 0 {
		t.Errorf("the RM was asked %d times", n)
	}
	if _, err := New(Config{RMAddresses: []string{rm.URL}, WebProxyAddress: "proxy:9046"}); err == nil || !strings.Contains(err.Error(), "web proxy address") {
		t.Errorf("bad proxy address: %v", err)
	}
}

// Node-label writes go through a standby the same way: the POST and its
// JSON body are re-sent to the Location (a standby answers every REST call
// but /cluster/info with the recorded 307; this path was not recorded, so
// the answer is built the same way).
func TestNodeLabelWriteThroughStandby(t *testing.T) {
	active := newReplay(t)
	var mu sync.Mutex
	var got string
	active.handle("/ws/v1/cluster/add-node-labels", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = r.Method + " " + string(b)
		mu.Unlock()
	})
	standby := newReplay(t)
	standby.handle("/ws/v1/cluster/add-node-labels", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", active.URL+r.URL.RequestURI())
		reply(307, "text/plain;charset=utf-8", "This is standby RM. The redirect url is: "+r.URL.RequestURI())(w, r)
	})
	c, _ := New(Config{RMAddresses: []string{standby.URL, active.URL}, User: "root"})
	if err := c.AddNodeLabels(context.Background(), []Label{{Name: "gpu", Exclusive: false}}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if got != `POST {"nodeLabelInfo":[{"name":"gpu","exclusivity":false}]}` {
		t.Errorf("the active RM got %q", got)
	}
}
