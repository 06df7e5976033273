package yarn

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// The node listing is reused only while the metrics' node counts and
// totals are unchanged, the listing is younger than the max age and no
// label was written since it was read.
func TestDecideNodeReuse(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	key := nodeListingKey{RM: "rm1", Total: 10000, Active: 10000, DefaultPartitionMB: 1 << 30,
		ClusterTotal: cluster.Resource{MemoryMB: 2 << 30, VCores: 320000}, CrossPartitionAvailable: true, Complete: true}
	with := func(f func(*nodeListingKey)) nodeListingKey { k := key; f(&k); return k }
	base := nodeReuseInput{Have: true, Last: key, ReadAt: t0, Now: key, Time: t0.Add(30 * time.Second), MaxAge: 5 * time.Minute}
	cases := []struct {
		name  string
		edit  func(*nodeReuseInput)
		reuse bool
		why   string
	}{
		{"metrics unchanged", func(*nodeReuseInput) {}, true, nodesReuse},
		{"at exactly the max age", func(in *nodeReuseInput) { in.Time = t0.Add(5 * time.Minute) }, true, nodesReuse},
		{"nothing kept", func(in *nodeReuseInput) { in.Have = false }, false, nodesNone},
		{"a node registered", func(in *nodeReuseInput) {
			in.Now = with(func(k *nodeListingKey) { k.Total++; k.Active++ })
		}, false, nodesChanged},
		{"a node lost", func(in *nodeReuseInput) { in.Now = with(func(k *nodeListingKey) { k.Active--; k.Lost++ }) }, false, nodesChanged},
		{"a node unhealthy", func(in *nodeReuseInput) { in.Now = with(func(k *nodeListingKey) { k.Active--; k.Unhealthy++ }) }, false, nodesChanged},
		{"a node decommissioning", func(in *nodeReuseInput) { in.Now = with(func(k *nodeListingKey) { k.Decommissioning++ }) }, false, nodesChanged},
		{"a node resized", func(in *nodeReuseInput) {
			in.Now = with(func(k *nodeListingKey) { k.ClusterTotal.MemoryMB += 1024 })
		}, false, nodesChanged},
		{"a node moved out of the default partition", func(in *nodeReuseInput) {
			in.Now = with(func(k *nodeListingKey) { k.DefaultPartitionMB -= 65536 })
		}, false, nodesChanged},
		{"another RM answers (failover)", func(in *nodeReuseInput) { in.Now = with(func(k *nodeListingKey) { k.RM = "rm2" }) }, false, nodesChanged},
		{"metrics unreadable", func(in *nodeReuseInput) { in.Now = nodeListingKey{} }, false, nodesNoMetrics},
		{"aged out", func(in *nodeReuseInput) { in.Time = t0.Add(5*time.Minute + time.Second) }, false, nodesAged},
		{"labels written", func(in *nodeReuseInput) { in.Written = true }, false, nodesWritten},
		{"max age -1: always", func(in *nodeReuseInput) { in.MaxAge = -1 }, false, nodesAlways},
		{"clock went back", func(in *nodeReuseInput) { in.Time = t0.Add(-time.Second) }, false, nodesClockBack},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := base
			tc.edit(&in)
			reuse, why := decideNodeReuse(in)
			if reuse != tc.reuse || why != tc.why {
				t.Errorf("got %v %q, want %v %q", reuse, why, tc.reuse, tc.why)
			}
		})
	}
}

// A partition's use from its leaf queues is their use less their
// reservations; parent queues (which sum their children) are not counted
// twice; a partition no leaf uses is idle.
func TestUsedFromQueues(t *testing.T) {
	r := func(mb, vc int64) cluster.Resource { return cluster.Resource{MemoryMB: mb, VCores: vc} }
	parts := []cluster.Partition{{Name: "", Used: r(1, 1), Total: r(100, 10)}, {Name: "gpu", Used: r(5, 5)}, {Name: "idle", Used: r(9, 9)}}
	queues := []cluster.Queue{
		{Path: "root", ByPartition: map[string]cluster.QueueCapacity{"": {Used: r(70, 7)}, "gpu": {Used: r(30, 3)}}},
		{Path: "root.a", Leaf: true, ByPartition: map[string]cluster.QueueCapacity{"": {Used: r(40, 4), Reserved: r(8, 1)}, "gpu": {Used: r(30, 3)}}},
		{Path: "root.b", Leaf: true, ByPartition: map[string]cluster.QueueCapacity{"": {Used: r(30, 3)}}},
	}
	got := usedFromQueues(parts, queues)
	want := []cluster.Partition{{Name: "", Used: r(62, 6), Total: r(100, 10)}, {Name: "gpu", Used: r(30, 3)}, {Name: "idle"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	if parts[0].Used != r(1, 1) {
		t.Errorf("the input was changed: %+v", parts[0])
	}
}

// Against the recorded 3.3.6 answers: the metrics carry every node count
// the reuse key reads; a second snapshot reuses the listing (no second
// GET /nodes) with the same partitions, their use from the leaf queues
// equal to the listing's; a label write or max age -1 re-reads it.
func TestReal336NodeListingReuse(t *testing.T) {
	rp := newReplay(t)
	realRunningRM(t, rp)
	rp.file(t, "/ws/v1/cluster/replace-node-to-labels", "running/rm_metrics") // any 200 stands in
	c, err := New(Config{RMAddresses: []string{rp.URL}, Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	m, err := c.Metrics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if k := keyOf(rp.URL, m); k.Total != 2 || k.Active != 2 || k.Lost != 0 || k.Unhealthy != 0 || k.DefaultPartitionMB != 4096 ||
		k.ClusterTotal != (cluster.Resource{MemoryMB: 8192, VCores: 8}) || !k.CrossPartitionAvailable {
		t.Errorf("key %+v", k)
	}
	t0 := time.Date(2026, 11, 23, 5, 55, 13, 0, time.UTC)
	first, err := c.Observe(ctx, ObserveOptions{Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	if first.NodesReused || !first.NodesReadAt.Equal(t0) || rp.count("GET /ws/v1/cluster/nodes") != 1 {
		t.Fatalf("first: reused %v read at %v, %d node reads", first.NodesReused, first.NodesReadAt, rp.count("GET /ws/v1/cluster/nodes"))
	}
	second, err := c.Observe(ctx, ObserveOptions{Now: t0.Add(30 * time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	if !second.NodesReused || !second.NodesReadAt.Equal(t0) || rp.count("GET /ws/v1/cluster/nodes") != 1 {
		t.Errorf("second: reused %v read at %v, %d node reads", second.NodesReused, second.NodesReadAt, rp.count("GET /ws/v1/cluster/nodes"))
	}
	if n := rp.count("GET /ws/v1/cluster/get-node-labels"); n != 1 {
		t.Errorf("second: %d node-label reads, want 1 (kept with the listing)", n)
	}
	if !reflect.DeepEqual(first.Partitions, second.Partitions) || !reflect.DeepEqual(first.Nodes, second.Nodes) {
		t.Errorf("partitions fresh %+v, reused %+v", first.Partitions, second.Partitions)
	}
	if p, _ := second.Partition("gpu"); p.Used.MemoryMB != 3840 {
		t.Errorf("gpu partition used %+v, want 3840 MB (root.crypto's use there)", p.Used)
	}
	if err := c.ReplaceNodeLabels(ctx, map[string]string{"gpunode:45451": "gpu"}); err != nil {
		t.Fatal(err)
	}
	third, err := c.Observe(ctx, ObserveOptions{Now: t0.Add(60 * time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	if third.NodesReused || rp.count("GET /ws/v1/cluster/nodes") != 2 || rp.count("GET /ws/v1/cluster/get-node-labels") != 2 {
		t.Errorf("after a label write: reused %v, %d node reads, %d node-label reads, want 2 each", third.NodesReused,
			rp.count("GET /ws/v1/cluster/nodes"), rp.count("GET /ws/v1/cluster/get-node-labels"))
	}
	if _, err := c.Observe(ctx, ObserveOptions{Now: t0.Add(90 * time.Second), NodeListingMaxAge: -1}); err != nil {
		t.Fatal(err)
	}
	if n := rp.count("GET /ws/v1/cluster/nodes"); n != 3 {
		t.Errorf("max age -1: %d node reads, want 3", n)
	}
	if n := rp.count("GET /ws/v1/cluster/get-node-labels"); n != 3 {
		t.Errorf("max age -1: %d node-label reads, want 3", n)
	}
	if n := rp.count("GET /ws/v1/cluster/metrics"); n != 4 {
		t.Errorf("%d metrics reads, want 4 (one per observe with reuse on, one by the test)", n)
	}
}

// An RM whose scheduler answer has no use per partition (before 3.x)
// leaves partitions' use to the node listing: it is read every snapshot.
func TestNodeListingReadWithoutQueueUsage(t *testing.T) {
	rp := newReplay(t)
	realRunningRM(t, rp)
	rec := loadRecorded(t, "running/rm_scheduler")
	var body map[string]any
	if err := json.Unmarshal(rec.body, &body); err != nil {
		t.Fatal(err)
	}
	var strip func(q map[string]any)
	strip = func(q map[string]any) {
		delete(q, "resources")
		if qs, ok := q["queues"].(map[string]any); ok {
			for _, c := range qs["queue"].([]any) {
				strip(c.(map[string]any))
			}
		}
	}
	strip(body["scheduler"].(map[string]any)["schedulerInfo"].(map[string]any))
	old, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	rp.handle("/ws/v1/cluster/scheduler", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(old)
	})
	c, err := New(Config{RMAddresses: []string{rp.URL}, Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 23, 5, 55, 13, 0, time.UTC)
	for i := 0; i < 2; i++ {
		snap, err := c.Observe(context.Background(), ObserveOptions{Now: t0.Add(time.Duration(i) * 30 * time.Second)})
		if err != nil {
			t.Fatal(err)
		}
		if snap.NodesReused || rp.count("GET /ws/v1/cluster/nodes") != i+1 {
			t.Errorf("snapshot %d: reused %v, %d node reads", i, snap.NodesReused, rp.count("GET /ws/v1/cluster/nodes"))
		}
		if p, _ := snap.Partition("gpu"); p.Used.MemoryMB != 3840 {
			t.Errorf("snapshot %d: gpu used %+v, want the listing's 3840 MB", i, p.Used)
		}
	}
}

// A node-label read that failed alongside the listing is an error of
// that snapshot and is tried again by the next, which reuses the listing;
// the labels it reads are then kept (no third read) and the partitions
// carry the exclusivity they say.
func TestNodeLabelsReadAgainAfterAFailure(t *testing.T) {
	rp := newReplay(t)
	realRunningRM(t, rp)
	rec := loadRecorded(t, "running/rm_get-node-labels")
	var fail atomic.Bool
	fail.Store(true)
	rp.handle("/ws/v1/cluster/get-node-labels", func(w http.ResponseWriter, _ *http.Request) {
		if fail.Load() {
			http.Error(w, "busy", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(rec.body)
	})
	c, err := New(Config{RMAddresses: []string{rp.URL}, Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	t0 := time.Date(2026, 11, 23, 5, 55, 13, 0, time.UTC)
	type want struct {
		reused      bool
		labelReads  int
		labelErrors int
	}
	for i, w := range []want{{false, 1, 1}, {true, 2, 0}, {true, 2, 0}} {
		snap, err := c.Observe(ctx, ObserveOptions{Now: t0.Add(time.Duration(i) * 30 * time.Second)})
		if err != nil {
			t.Fatal(err)
		}
		fail.Store(false)
		errs := 0
		for _, e := range snap.Errors {
			if e.What == "node labels" {
				errs++
			}
		}
		if snap.NodesReused != w.reused || rp.count("GET /ws/v1/cluster/get-node-labels") != w.labelReads || errs != w.labelErrors {
			t.Errorf("snapshot %d: listing reused %v, %d node-label reads, %d label errors; want %+v", i, snap.NodesReused,
				rp.count("GET /ws/v1/cluster/get-node-labels"), errs, w)
		}
		// Unread, a label partition counts as exclusive (YARN's default);
		// the recorded labels say gpu is not.
		if p, ok := snap.Partition("gpu"); !ok || p.Exclusive != (i == 0) {
			t.Errorf("snapshot %d: gpu partition %+v (found %v), want exclusive %v", i, p, ok, i == 0)
		}
	}
}
