package yarn_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/yarn"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// On the mini cluster: the first snapshot reads apps with resourceInfo,
// the next ones (within AppUsageMaxAge) without it. There, an app not
// marked UsageEstimated has the use per partition a full read shows; all
// apps of a queue together use, per partition, what the full read's apps
// do (to rounding: 1 MB per estimated app); an app with estimated use is never placed exactly by partition.
// Past the max age, apps are read in full again.
func TestObserveLeanAppsRead(t *testing.T) {
	c, srv, leanReads := countedSimRM(t, "hetero-100", 20*time.Minute, func(r *http.Request) bool {
		return r.URL.Path == "/ws/v1/cluster/apps" && strings.Contains(r.URL.Query().Get("deSelects"), "resourceInfo")
	})
	rules := calibrate.Classifier{Rules: []calibrate.NodeTypeRule{{Name: "cpu-old", HostPattern: "cpu-old-*"}, {Name: "cpu-new", HostPattern: "cpu-new-*"}, {Name: "gpu", HostPattern: "gpu-*"}}}
	cl, err := yarn.New(yarn.Config{RMAddresses: []string{srv.URL}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	opts := func() yarn.ObserveOptions {
		return yarn.ObserveOptions{Now: c.Now(), NodeType: rules.TypeOf, ListingBudget: 4}
	}
	truth := func() map[string]cluster.App {
		t.Helper()
		apps, err := cl.Apps(ctx, "RUNNING") // a full read
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]cluster.App{}
		for _, a := range apps {
			out[a.ID] = a
		}
		return out
	}
	if _, err := cl.Observe(ctx, opts()); err != nil {
		t.Fatal(err)
	}
	if n := leanReads.Load(); n != 0 {
		t.Fatalf("first snapshot: %d apps reads without resourceInfo, want a full one", n)
	}
	var estimated, kept int
	for i := 0; i < 4; i++ {
		c.Step(30 * time.Second)
		before := leanReads.Load()
		snap, err := cl.Observe(ctx, opts())
		if err != nil {
			t.Fatal(err)
		}
		if leanReads.Load() != before+1 {
			t.Fatalf("step %d: %d apps reads without resourceInfo, want 1", i, leanReads.Load()-before)
		}
		want := truth()
		type qp struct{ queue, partition string }
		got, full, split := map[qp]int64{}, map[qp]int64{}, map[string]int64{}
		for _, a := range snap.RunningApps() {
			w, ok := want[a.ID]
			if !ok {
				continue // finished in between
			}
			for p, u := range a.UsageByPartition {
				got[qp{a.Queue, p}] += u.Used.MemoryMB
			}
			for p, u := range w.UsageByPartition {
				full[qp{a.Queue, p}] += u.Used.MemoryMB
			}
			if a.UsageEstimated {
				estimated++
				split[a.Queue]++
				if a.Placement == cluster.PlacementPartition {
					t.Errorf("step %d %s: estimated use, placement %q", i, a.ID, a.Placement)
				}
				continue
			}
			kept++
			for p, u := range a.UsageByPartition {
				if u.Used != w.UsageByPartition[p].Used {
					t.Errorf("step %d %s partition %q: used %+v, a full read says %+v", i, a.ID, p, u.Used, w.UsageByPartition[p].Used)
				}
			}
		}
		for k, m := range full {
			// Each estimated app's split rounds on its own: up to 1 MB each.
			if d := got[k] - m; d > split[k.queue] || -d > split[k.queue] {
				t.Errorf("step %d queue %s partition %q: apps use %d MB, a full read's apps %d", i, k.queue, k.partition, got[k], m)
			}
		}
	}
	if estimated == 0 || kept == 0 {
		t.Fatalf("%d apps kept, %d estimated over 4 snapshots: the comparison proves little", kept, estimated)
	}

	// Past the max age: a full read again.
	c.Step(yarn.DefaultAppUsageMaxAge)
	before := leanReads.Load()
	snap, err := cl.Observe(ctx, opts())
	if err != nil {
		t.Fatal(err)
	}
	if leanReads.Load() != before {
		t.Fatal("past the max age: apps read without resourceInfo, want a full read")
	}
	for _, a := range snap.Apps {
		if a.UsageEstimated {
			t.Fatalf("%s: estimated use after a full read", a.ID)
		}
	}
}
