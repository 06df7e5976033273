package rmweb_test

import (
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
)

// /cluster/metrics counts apps and nodes as the RM's QueueMetrics and
// ClusterMetrics do: appsRunning, appsPending (ACCEPTED), appsCompleted
// (FINISHED), appsFailed, appsKilled as /apps lists them, appsSubmitted
// their sum; nodes by state, so a client can tell from it alone whether
// the node listing changed (the sidecar's node-listing reuse, issue 19).
func TestMetricsCountAppsAndNodes(t *testing.T) {
	c := sim.Start(t, "hetero-100", 1)
	c.Step(20 * time.Minute)
	count := func(states string) float64 {
		t.Helper()
		body := getJSON(t, c.URL+"/ws/v1/cluster/apps?states="+states)
		apps, _ := body["apps"].(map[string]any)
		if apps == nil {
			return 0
		}
		list, _ := apps["app"].([]any)
		return float64(len(list))
	}
	metrics := func() map[string]any {
		return getJSON(t, c.URL+"/ws/v1/cluster/metrics")["clusterMetrics"].(map[string]any)
	}
	m := metrics()
	want := map[string]float64{"appsRunning": count("RUNNING"), "appsPending": count("ACCEPTED"), "appsCompleted": count("FINISHED"),
		"appsFailed": count("FAILED"), "appsKilled": count("KILLED")}
	if want["appsRunning"] == 0 || want["appsCompleted"] == 0 {
		t.Fatalf("after 20 minutes nothing runs or nothing finished: %v", want)
	}
	sum := 0.0
	for k, w := range want {
		sum += w
		if got := num(t, m[k]); got != w {
			t.Errorf("%s %v, /apps lists %v", k, got, w)
		}
	}
	if got := num(t, m["appsSubmitted"]); got != sum {
		t.Errorf("appsSubmitted %v, want %v", got, sum)
	}
	if num(t, m["totalNodes"]) != 100 || num(t, m["activeNodes"]) != 100 || num(t, m["unhealthyNodes"]) != 0 {
		t.Errorf("nodes: total %v active %v unhealthy %v", m["totalNodes"], m["activeNodes"], m["unhealthyNodes"])
	}
	before := num(t, m["totalMB"])
	node := c.Nodes()[0]
	if err := c.SetNodeState(node.ID, "UNHEALTHY"); err != nil {
		t.Fatal(err)
	}
	m = metrics()
	if num(t, m["totalNodes"]) != 100 || num(t, m["activeNodes"]) != 99 || num(t, m["unhealthyNodes"]) != 1 {
		t.Errorf("one node unhealthy: total %v active %v unhealthy %v", m["totalNodes"], m["activeNodes"], m["unhealthyNodes"])
	}
	if len(node.Labels) == 0 && num(t, m["totalMB"]) != before-float64(node.Total.MemoryMB) {
		t.Errorf("totalMB %v, want %v less the unhealthy node's %d", m["totalMB"], before, node.Total.MemoryMB)
	}
}
