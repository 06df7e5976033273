package yarn_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
	"github.com/yarn-sidecar/yarn-sidecar/yarn"
)

// Containers per node are re-read only for apps whose running containers
// or allocation changed (or after PlacementMaxAge): a cluster running
// thousands of apps is not asked twice per app every cycle.
func TestObserveReusesUnchangedPlacements(t *testing.T) {
	c, srv, containerCalls := countedSimRM(t, "lee-gpu", 3*time.Minute, func(r *http.Request) bool {
		return strings.HasSuffix(r.URL.Path, "/containers")
	})
	cl, err := yarn.New(yarn.Config{RMAddresses: []string{srv.URL}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	first, err := cl.Observe(ctx, yarn.ObserveOptions{Now: c.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if n := containerCalls.Load(); n != 2 {
		t.Fatalf("first snapshot read %d container lists, want 2 (one per running app)", n)
	}
	// Nothing moved: the same instant again reuses both placements.
	second, err := cl.Observe(ctx, yarn.ObserveOptions{Now: c.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if n := containerCalls.Load(); n != 2 {
		t.Fatalf("unchanged apps were re-read: %d container lists", n)
	}
	for i := range first.Apps {
		if !reflect.DeepEqual(first.Apps[i].ContainersByNode, second.Apps[i].ContainersByNode) {
			t.Fatalf("reused placement differs: %v vs %v", first.Apps[i].ContainersByNode, second.Apps[i].ContainersByNode)
		}
	}
	// Re-reading is forced with a negative max age.
	if _, err := cl.Observe(ctx, yarn.ObserveOptions{Now: c.Now(), PlacementMaxAge: -1}); err != nil {
		t.Fatal(err)
	}
	if n := containerCalls.Load(); n != 4 {
		t.Fatalf("PlacementMaxAge -1 read %d lists in all, want 4", n)
	}
	// Later, tasks have finished and started: the counts changed, so the
	// lists are read again and match what the RM says now.
	c.Step(2 * time.Minute)
	third, err := cl.Observe(ctx, yarn.ObserveOptions{Now: c.Now()})
	if err != nil {
		t.Fatal(err)
	}
	fresh, _ := yarn.New(yarn.Config{RMAddresses: []string{srv.URL}})
	truth, err := fresh.Observe(ctx, yarn.ObserveOptions{Now: c.Now()})
	if err != nil {
		t.Fatal(err)
	}
	for i := range third.Apps {
		if !reflect.DeepEqual(third.Apps[i].ContainersByNode, truth.Apps[i].ContainersByNode) {
			t.Fatalf("after changes: %v, the RM says %v", third.Apps[i].ContainersByNode, truth.Apps[i].ContainersByNode)
		}
	}
}

// countedSimRM serves a mini cluster of scenario, run for warm, over
// loopback and counts the requests count selects. The server closes with
// the test.
func countedSimRM(t *testing.T, scenario string, warm time.Duration, count func(*http.Request) bool) (*sim.Cluster, *httptest.Server, *atomic.Int64) {
	t.Helper()
	sc, err := sim.LoadScenario(scenario)
	if err != nil {
		t.Fatal(err)
	}
	c, err := sim.NewCluster(sc, 1)
	if err != nil {
		t.Fatal(err)
	}
	c.Step(warm)
	var n atomic.Int64
	h := c.Handler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if count(r) {
			n.Add(1)
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return c, srv, &n
}
