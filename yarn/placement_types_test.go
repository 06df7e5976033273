package yarn_test

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
	"github.com/yarn-sidecar/yarn-sidecar/yarn"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// countingTransport counts the requests whose path contains "/appattempts"
// (the per-node container listings).
type countingTransport struct{ listings atomic.Int64 }

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if strings.Contains(r.URL.Path, "/appattempts") {
		c.listings.Add(1)
	}
	return http.DefaultTransport.RoundTrip(r)
}

func observeWith(t *testing.T, url string, opts yarn.ObserveOptions) (cluster.Snapshot, int64) {
	t.Helper()
	ct := &countingTransport{}
	c, err := yarn.New(yarn.Config{RMAddresses: []string{url}, Timeout: 10 * time.Second, HTTPClient: &http.Client{Transport: ct}})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := c.Observe(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Errors) > 0 {
		t.Fatalf("load errors: %+v", snap.Errors)
	}
	return snap, ct.listings.Load()
}

// listedTypes is the exact placement by type: the per-node listing mapped
// through the classifier.
func listedTypes(a cluster.App, typeOf func(cluster.Node) string, nodes map[string]cluster.Node) map[string]int {
	out := map[string]int{}
	for id, k := range a.ContainersByNode {
		out[typeOf(nodes[id])] += k
	}
	return out
}

func sameCounts(a, b map[string]int) bool {
	for k, v := range a {
		if v != 0 && b[k] != v {
			return false
		}
	}
	for k, v := range b {
		if v != 0 && a[k] != v {
			return false
		}
	}
	return true
}

// Issue 19: where every partition holds one node type, the placement read
// from resourceUsagesByPartition equals the one from per-node listings,
// and no listing is requested.
func TestPlacementFromPartitionsEqualsListing(t *testing.T) {
	tc := sim.Start(t, "hetero-100", 2)
	tc.Step(10 * time.Minute)
	typeOf := calibrate.Classifier{}.TypeOf // by resources and partition: one type per partition here
	listed, n := observeWith(t, tc.URL, yarn.ObserveOptions{Now: tc.Now()})
	byPart, m := observeWith(t, tc.URL, yarn.ObserveOptions{Now: tc.Now(), NodeType: typeOf})
	if n == 0 || m != 0 {
		t.Fatalf("listing requests: %d without node types, %d with (want >0, 0)", n, m)
	}
	nodes := listed.NodeByID()
	apps := map[string]cluster.App{}
	for _, a := range byPart.Apps {
		apps[a.ID] = a
	}
	checked := 0
	for _, want := range listed.RunningApps() {
		got := apps[want.ID]
		exact := listedTypes(want, typeOf, nodes)
		if got.Placement != cluster.PlacementPartition || !got.Placement.Exact() {
			t.Errorf("%s placement %q, want %q", want.ID, got.Placement, cluster.PlacementPartition)
		}
		if !sameCounts(got.ContainersByType, exact) {
			t.Errorf("%s: from partitions %v, listed %v", want.ID, got.ContainersByType, exact)
		}
		checked++
	}
	if checked < 2 {
		t.Fatalf("only %d running apps compared", checked)
	}
}

// Where a partition mixes node types, apps are listed within the budget
// (largest first) and the rest estimated from the type mix: their counts
// still sum to the app's running containers, and they are marked.
func TestPlacementMixedPartitionBudget(t *testing.T) {
	tc := sim.Start(t, "hetero-100", 2)
	tc.Step(10 * time.Minute)
	rules := calibrate.Classifier{Rules: []calibrate.NodeTypeRule{{Name: "cpu-old", HostPattern: "cpu-old-*"}, {Name: "cpu-new", HostPattern: "cpu-new-*"}, {Name: "gpu", HostPattern: "gpu-*"}}}
	listed, _ := observeWith(t, tc.URL, yarn.ObserveOptions{Now: tc.Now()})
	snap, n := observeWith(t, tc.URL, yarn.ObserveOptions{Now: tc.Now(), NodeType: rules.TypeOf, ListingBudget: 2})
	if n > 2 {
		t.Fatalf("%d listing requests over a budget of 2", n)
	}
	nodes := listed.NodeByID()
	want := map[string]cluster.App{}
	for _, a := range listed.Apps {
		want[a.ID] = a
	}
	var listedN, estimated int
	for _, a := range snap.RunningApps() {
		sum := 0
		for _, k := range a.ContainersByType {
			sum += k
		}
		if sum != a.RunningContainers {
			t.Errorf("%s: %v sums to %d, runs %d", a.ID, a.ContainersByType, sum, a.RunningContainers)
		}
		switch a.Placement {
		case cluster.PlacementListed:
			listedN++
			if exact := listedTypes(want[a.ID], rules.TypeOf, nodes); !sameCounts(a.ContainersByType, exact) {
				t.Errorf("%s listed %v, want %v", a.ID, a.ContainersByType, exact)
			}
		case cluster.PlacementEstimated:
			estimated++
			if a.Placement.Exact() {
				t.Errorf("%s: estimated placement says exact", a.ID)
			}
		}
	}
	// The mini RM's AM containers name their attempts: one request each,
	// so the budget of 2 requests lists 2 apps and spends all of it.
	if listedN != 2 || n != 2 || estimated == 0 {
		t.Fatalf("listed %d in %d requests (want 2 in 2 within a budget of 2 requests), estimated %d (want >0)", listedN, n, estimated)
	}
}
