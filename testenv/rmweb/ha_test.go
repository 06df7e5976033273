package rmweb_test

import (
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
)

// An RM HA pair over one mini cluster answers as the recorded pair does
// (testdata/real-3.3.6/ha): standby info itself, 307 to the active for
// everything else, a redirected PUT not applied, Refresh with no active,
// /isActive, trackingUrl on the RM active at app start, the dead RM
// refusing connections.
func TestHAPair(t *testing.T) {
	c := sim.Start(t, "testdata/real336.yaml", 1)
	pair := c.StartHA(t)
	rm1, rm2 := pair.URL(0), pair.URL(1)
	c.Step(40 * time.Second) // both apps started under rm1
	apps := c.Apps()

	// Phase 1: rm1 active, rm2 standby.
	resp, body := get(t, rm1+"/isActive")
	if resp.StatusCode != 200 || string(body) != "I am Active!" {
		t.Errorf("active /isActive: %d %q", resp.StatusCode, body)
	}
	resp, _ = get(t, rm2+"/isActive")
	if resp.StatusCode != 405 {
		t.Errorf("standby /isActive: %d, want 405", resp.StatusCode)
	}
	if s := getJSON(t, rm2+"/ws/v1/cluster/info")["clusterInfo"].(map[string]any)["haState"]; s != "STANDBY" {
		t.Errorf("standby haState %v", s)
	}
	if s := getJSON(t, rm1+"/ws/v1/cluster/info")["clusterInfo"].(map[string]any)["haState"]; s != "ACTIVE" {
		t.Errorf("active haState %v", s)
	}
	for _, path := range []string{"/ws/v1/cluster/apps", "/ws/v1/cluster/scheduler-conf", "/ws/v1/cluster/scheduler-conf/version"} {
		resp, body := get(t, rm2+path)
		if resp.StatusCode != 307 || resp.Header.Get("Location") != rm1+path || string(body) != "This is standby RM. The redirect url is: "+path+"\n" ||
			!strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
			t.Errorf("standby GET %s: %d Location %q body %q", path, resp.StatusCode, resp.Header.Get("Location"), body)
		}
	}
	_, v := c.SchedulerConf()
	valid := string(readRecorded(t, "mutations/bodies/valid.xml"))
	resp, text := send(t, "PUT", rm2+"/ws/v1/cluster/scheduler-conf?user.name=root", "application/xml", valid)
	if resp.StatusCode != 307 || resp.Header.Get("Location") != rm1+"/ws/v1/cluster/scheduler-conf?user.name=root" ||
		text != "This is standby RM. The redirect url is: /ws/v1/cluster/scheduler-conf?user.name=root\n" {
		t.Errorf("standby PUT: %d Location %q body %q", resp.StatusCode, resp.Header.Get("Location"), text)
	}
	if _, v2 := c.SchedulerConf(); v2 != v {
		t.Errorf("a PUT redirected by the standby was applied (version %d → %d)", v, v2)
	}
	// The standby's web proxy serves the AM (recorded).
	if resp, _ := get(t, rm2+"/proxy/"+apps[0].ID+"/ws/v1/mapreduce/info"); resp.StatusCode != 200 {
		t.Errorf("standby proxy: %d, want 200", resp.StatusCode)
	}
	tracking := getJSON(t, rm1+"/ws/v1/cluster/apps/"+apps[0].ID)["app"].(map[string]any)["trackingUrl"].(string)
	if !strings.HasPrefix(tracking, rm1+"/proxy/") {
		t.Errorf("trackingUrl %q, want on rm1 %s", tracking, rm1)
	}

	// Phase 5's window: no active RM.
	pair.NoActive()
	resp, body = get(t, rm2+"/ws/v1/cluster/apps")
	if resp.StatusCode != 307 || resp.Header.Get("Location") != "" ||
		resp.Header.Get("Refresh") != "5;url="+rm2+"/ws/v1/cluster/apps?next.refresh.interval=1" ||
		string(body) != "Can not find any active RM. Will retry in next 5 seconds.\nHA Zookeeper Connection State: CONNECTED\n" {
		t.Errorf("no active RM: %d Location %q Refresh %q body %q", resp.StatusCode, resp.Header.Get("Location"), resp.Header.Get("Refresh"), body)
	}
	if err := pair.Promote(0); err != nil {
		t.Fatal(err)
	}

	// Phase 2: the active stops mid-cycle; rm2 takes over.
	if err := pair.Failover(); err != nil {
		t.Fatal(err)
	}
	if pair.Active() != 1 {
		t.Fatalf("active after failover %d, want 1 (rm2)", pair.Active())
	}
	_, err := http.Get(rm1 + "/ws/v1/cluster/info")
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("the stopped RM: %v, want connection refused", err)
	}
	if s := getJSON(t, rm2+"/ws/v1/cluster/info")["clusterInfo"].(map[string]any)["haState"]; s != "ACTIVE" {
		t.Errorf("rm2 after failover: haState %v", s)
	}
	// The apps' trackingUrl still names rm1, dead now; the same proxy path
	// on the new active answers.
	tracking = getJSON(t, rm2+"/ws/v1/cluster/apps/"+apps[0].ID)["app"].(map[string]any)["trackingUrl"].(string)
	if !strings.HasPrefix(tracking, rm1+"/proxy/") {
		t.Errorf("trackingUrl after failover %q, want still rm1's", tracking)
	}
	if _, err := http.Get(tracking + "ws/v1/mapreduce/info"); err == nil {
		t.Error("the trackingUrl on the dead RM answered")
	}
	u, _ := url.Parse(tracking)
	if resp, _ := get(t, rm2+u.Path+"ws/v1/mapreduce/info"); resp.StatusCode != 200 {
		t.Errorf("the proxy path on the new active: %d", resp.StatusCode)
	}
	resp, text = send(t, "PUT", rm2+"/ws/v1/cluster/scheduler-conf?user.name=root", "application/xml", valid)
	if _, v2 := c.SchedulerConf(); resp.StatusCode != 200 || v2 != v+1 {
		t.Errorf("PUT on the new active: %d %q, version %d → %d", resp.StatusCode, text, v, v2)
	}

	// Phase 3: rm1 back as standby redirects to rm2; an app started now
	// tracks rm2.
	if err := pair.Restart(0); err != nil {
		t.Fatal(err)
	}
	resp, _ = get(t, rm1+"/ws/v1/cluster/apps")
	if resp.StatusCode != 307 || resp.Header.Get("Location") != rm2+"/ws/v1/cluster/apps" {
		t.Errorf("restarted rm1: %d Location %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if err := pair.Promote(0); err != nil { // a restarted RM can be promoted
		t.Fatal(err)
	}
	if _, err := net.Dial("tcp", strings.TrimPrefix(rm1, "http://")); err != nil {
		t.Errorf("rm1 after restart: %v", err)
	}
	if pair.Active() != 0 {
		t.Errorf("active after Promote(0): %d", pair.Active())
	}
}
