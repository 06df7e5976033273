package yarn_test

import (
	"context"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/yarn"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// On the mini cluster (whose /metrics counts nodes and apps as a real RM
// does): while apps start and finish, the node listing is reused and each
// partition's use — from the leaf queues — equals what a fresh listing
// sums; a node turning unhealthy changes the metrics and a label write
// invalidates the listing, and either makes the next snapshot re-read it.
func TestObserveReusesNodeListing(t *testing.T) {
	c, srv, nodeReads := countedSimRM(t, "hetero-100", 10*time.Minute, func(r *http.Request) bool {
		return r.URL.Path == "/ws/v1/cluster/nodes"
	})
	cl, err := yarn.New(yarn.Config{RMAddresses: []string{srv.URL}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	truth := func() cluster.Snapshot {
		t.Helper()
		fresh, _ := yarn.New(yarn.Config{RMAddresses: []string{srv.URL}})
		s, err := fresh.Observe(ctx, yarn.ObserveOptions{Now: c.Now(), NodeListingMaxAge: -1})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	first, err := cl.Observe(ctx, yarn.ObserveOptions{Now: c.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if first.NodesReused || !first.NodesReadAt.Equal(first.Time) {
		t.Fatalf("first snapshot: reused %v, nodes read at %v", first.NodesReused, first.NodesReadAt)
	}
	moved := false
	for i := 0; i < 4; i++ {
		c.Step(30 * time.Second)
		reads := nodeReads.Load()
		snap, err := cl.Observe(ctx, yarn.ObserveOptions{Now: c.Now()})
		if err != nil {
			t.Fatal(err)
		}
		if !snap.NodesReused || !snap.NodesReadAt.Equal(first.Time) || nodeReads.Load() != reads {
			t.Fatalf("step %d: reused %v, read at %v, %d node reads", i, snap.NodesReused, snap.NodesReadAt, nodeReads.Load()-reads)
		}
		want := truth()
		if len(want.Partitions) != len(snap.Partitions) {
			t.Fatalf("step %d: partitions %+v, want %+v", i, snap.Partitions, want.Partitions)
		}
		for j, p := range snap.Partitions {
			w := want.Partitions[j]
			if p.Name != w.Name || p.Used != w.Used || p.Total != w.Total || !reflect.DeepEqual(p.NodeIDs, w.NodeIDs) {
				t.Errorf("step %d partition %q: used %+v total %+v, fresh listing: used %+v total %+v", i, p.Name, p.Used, p.Total, w.Used, w.Total)
			}
			if p.Used != first.Partitions[j].Used {
				moved = true
			}
		}
	}
	if !moved {
		t.Fatal("no partition's use changed in two minutes: the comparison proves nothing")
	}

	// A node turns unhealthy: the metrics count it, the listing is re-read.
	id := first.Partitions[0].NodeIDs[0]
	if err := c.SetNodeState(id, "UNHEALTHY"); err != nil {
		t.Fatal(err)
	}
	reads := nodeReads.Load()
	snap, err := cl.Observe(ctx, yarn.ObserveOptions{Now: c.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if snap.NodesReused || nodeReads.Load() != reads+1 || snap.NodeByID()[id].State != cluster.NodeUnhealthy {
		t.Errorf("after a node turned unhealthy: reused %v, %d node reads, state %s", snap.NodesReused, nodeReads.Load()-reads, snap.NodeByID()[id].State)
	}

	// The sidecar relabels a node: the next snapshot re-reads and sees it.
	var cpu string
	for _, n := range snap.Nodes {
		if n.Partition == "" && n.Usable() && strings.HasPrefix(n.Host, "cpu-new") {
			cpu = n.ID
			break
		}
	}
	if err := cl.ReplaceNodeLabels(ctx, map[string]string{cpu: "gpu"}); err != nil {
		t.Fatal(err)
	}
	reads = nodeReads.Load()
	snap, err = cl.Observe(ctx, yarn.ObserveOptions{Now: c.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if snap.NodesReused || nodeReads.Load() != reads+1 || snap.NodeByID()[cpu].Partition != "gpu" {
		t.Errorf("after a label write: reused %v, %d node reads, %s in %q", snap.NodesReused, nodeReads.Load()-reads, cpu, snap.NodeByID()[cpu].Partition)
	}
}
