package yarn_test

import (
	"context"
	"fmt"
	"hash/crc32"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/yarn"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// On the mini cluster, where a partition holds one node type (the
// classifier's default types, by size and partition): the first snapshot
// reads apps with resourceInfo, the next ones (within AppUsageMaxAge)
// without it. Where every partition mixes types, every snapshot after the
// first (which has no listing to say so) reads apps lean, those past the
// max age too. Either way an app not marked UsageEstimated has the use
// per partition a full read shows (or, rarely, the same total split as
// it was before one container ended in one partition and one of the same
// size started in another: the lean read cannot see that); all apps of a queue together use, per
// partition, what the full read's apps do (to rounding: 1 MB per
// estimated app); an app with estimated use is never placed exactly by
// partition; an app's estimated AM use is what a full read shows (every
// AM of a queue is one size here).
func TestObserveLeanAppsRead(t *testing.T) {
	// Two types dealt by a hash of the node id: both partitions mix them.
	alternate := func(n cluster.Node) string {
		return fmt.Sprint("type-", crc32.ChecksumIEEE([]byte(n.ID))%2)
	}
	// data-heavy's fast partition holds its compute nodes only; its
	// storage nodes dealt in two types mix the default partition.
	hostRules := calibrate.Classifier{Rules: []calibrate.NodeTypeRule{{Name: "compute", HostPattern: "compute-*"}}}
	oneMixed := func(n cluster.Node) string {
		if t := hostRules.TypeOf(n); t == "compute" {
			return t
		}
		return alternate(n)
	}
	for _, tc := range []struct {
		name     string
		nodeType func(cluster.Node) string
		mixed    bool // every read after the first lean, past the max age too
	}{
		{"every partition of one node type", calibrate.Classifier{}.TypeOf, false},
		{"one partition of one node type, one mixed", oneMixed, false},
		{"every partition mixed", alternate, true},
	} {
		t.Run(tc.name, func(t *testing.T) { leanAppsRead(t, tc.nodeType, tc.mixed) })
	}
}

func leanAppsRead(t *testing.T, nodeType func(cluster.Node) string, mixed bool) {
	// data-heavy 18 minutes in: 12 apps run, 8 of them on nodes of both
	// partitions (maps on the lent fast nodes), whose use a lean read
	// must estimate.
	c, srv, leanReads := countedSimRM(t, "data-heavy", 18*time.Minute, func(r *http.Request) bool {
		return r.URL.Path == "/ws/v1/cluster/apps" && strings.Contains(r.URL.Query().Get("deSelects"), "resourceInfo")
	})
	cl, err := yarn.New(yarn.Config{RMAddresses: []string{srv.URL}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	opts := func() yarn.ObserveOptions {
		return yarn.ObserveOptions{Now: c.Now(), NodeType: nodeType, ListingBudget: 4}
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
	var estimated, kept, amEstimated, swapped int
	check := func(step string, snap cluster.Snapshot) {
		t.Helper()
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
			if a.AMEstimated {
				amEstimated++
				am := sumUsage(a.UsageByPartition, func(u cluster.AppPartitionUsage) cluster.Resource { return u.AMUsed })
				wantAM := sumUsage(w.UsageByPartition, func(u cluster.AppPartitionUsage) cluster.Resource { return u.AMUsed })
				if am != wantAM {
					t.Errorf("%s %s: estimated AM use %+v, a full read says %+v", step, a.ID, am, wantAM)
				}
			}
			if a.UsageEstimated {
				estimated++
				split[a.Queue]++
				if a.Placement == cluster.PlacementPartition {
					t.Errorf("%s %s: estimated use, placement %q", step, a.ID, a.Placement)
				}
				continue
			}
			kept++
			used := func(u cluster.AppPartitionUsage) cluster.Resource { return u.Used }
			total, wantTotal := sumUsage(a.UsageByPartition, used), sumUsage(w.UsageByPartition, used)
			if total != wantTotal {
				t.Errorf("%s %s: kept use %+v in all, a full read says %+v", step, a.ID, total, wantTotal)
				continue
			}
			for p, u := range a.UsageByPartition {
				if u.Used != w.UsageByPartition[p].Used {
					// A container ended in one partition and one of the
					// same size started in another: count, size and AM
					// unchanged, so the lean read keeps the old split
					// (it cannot tell; the queue sums below still hold).
					swapped++
					break
				}
			}
		}
		for k, m := range full {
			// Each estimated app's split rounds on its own: up to 1 MB each.
			if d := got[k] - m; d > split[k.queue] || -d > split[k.queue] {
				t.Errorf("%s queue %s partition %q: apps use %d MB, a full read's apps %d", step, k.queue, k.partition, got[k], m)
			}
		}
	}
	snap, err := cl.Observe(ctx, opts())
	if err != nil {
		t.Fatal(err)
	}
	if n := leanReads.Load(); n != 0 {
		t.Fatalf("first snapshot: %d apps reads without resourceInfo, want a full one", n)
	}
	for _, a := range snap.Apps {
		if a.UsageEstimated || a.AMEstimated {
			t.Fatalf("%s: estimated use after a full read", a.ID)
		}
	}
	check("first", snap)
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
		check(fmt.Sprintf("step %d", i), snap)
	}
	if swapped*10 > kept {
		t.Errorf("%d of %d kept apps had containers swapped between partitions: the kept split is stale too often", swapped, kept)
	}
	if estimated == 0 || kept == 0 {
		t.Fatalf("%d apps kept, %d estimated over 4 snapshots: the comparison proves little", kept, estimated)
	}
	if mixed && amEstimated == 0 {
		t.Fatal("no AM use estimated where every read is lean")
	}

	// Past the max age: a full read again, unless every partition mixes.
	c.Step(yarn.DefaultAppUsageMaxAge)
	before := leanReads.Load()
	snap, err = cl.Observe(ctx, opts())
	if err != nil {
		t.Fatal(err)
	}
	if lean := leanReads.Load() - before; lean != map[bool]int64{false: 0, true: 1}[mixed] {
		t.Fatalf("past the max age: %d apps reads without resourceInfo (every partition mixed: %v)", lean, mixed)
	}
	if !mixed {
		for _, a := range snap.Apps {
			if a.UsageEstimated {
				t.Fatalf("%s: estimated use after a full read", a.ID)
			}
		}
	}
}

// sumUsage adds one field of an app's use over its partitions.
func sumUsage(by map[string]cluster.AppPartitionUsage, field func(cluster.AppPartitionUsage) cluster.Resource) cluster.Resource {
	var r cluster.Resource
	for _, u := range by {
		r = r.Add(field(u))
	}
	return r
}
