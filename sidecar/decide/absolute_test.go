package decide

import (
	"math"
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// absoluteConf is held-out cluster 1005's tree in small: a flat absolute
// tree over a 196608 MB default partition and a 196608 MB gpu-a one.
func absoluteConf() schedconf.Conf {
	return schedconf.Conf{
		"yarn.scheduler.capacity.root.queues":                                           "etl,bi",
		"yarn.scheduler.capacity.root.accessible-node-labels":                           "*",
		"yarn.scheduler.capacity.root.accessible-node-labels.gpu-a.capacity":            "100",
		"yarn.scheduler.capacity.root.etl.capacity":                                     "[memory=49152,vcores=24]",
		"yarn.scheduler.capacity.root.etl.accessible-node-labels":                       "gpu-a",
		"yarn.scheduler.capacity.root.etl.accessible-node-labels.gpu-a.capacity":        "[memory=58982,vcores=14]",
		"yarn.scheduler.capacity.root.bi.capacity":                                      "[memory=73728,vcores=36]",
		"yarn.scheduler.capacity.root.bi.accessible-node-labels":                        "gpu-a",
		"yarn.scheduler.capacity.root.bi.accessible-node-labels.gpu-a.capacity":         "[memory=39321,vcores=9]",
		"yarn.scheduler.capacity.root.bi.accessible-node-labels.gpu-a.maximum-capacity": "[memory=196608,vcores=48]",
	}
}

func TestResolveAbsolute(t *testing.T) {
	parts := []cluster.Partition{{Name: "", Total: cluster.Resource{MemoryMB: 196608}}, {Name: "gpu-a", Total: cluster.Resource{MemoryMB: 196608}}}
	rmSays := []cluster.Queue{{Path: "root.etl", Name: "etl", Leaf: true, ByPartition: map[string]cluster.QueueCapacity{"": {AbsoluteCapacity: 20}}}}
	for _, c := range []struct {
		name         string
		queues       []cluster.Queue
		queue, label string
		want         float64
	}{
		{"the RM's effective share where it says one", rmSays, "root.etl", "", 0.20},
		{"else the configured memory over the partition's", rmSays, "root.etl", "gpu-a", 0.3},
		{"a queue the RM does not list: its memory", rmSays, "root.bi", "", 0.375},
		{"no queues observed at all: its memory", nil, "root.bi", "gpu-a", 0.2},
	} {
		t.Run(c.name, func(t *testing.T) {
			tree, err := schedconf.ParseTree(absoluteConf())
			if err != nil {
				t.Fatal(err)
			}
			snap := &cluster.Snapshot{Partitions: parts, Queues: c.queues}
			resolveAbsolute(tree, snap)
			if got := tree.ByPath[c.queue].AbsCapacity[c.label]; math.Abs(got-c.want) > 1e-4 {
				t.Fatalf("%s in %q: %v, want %v", c.queue, c.label, got, c.want)
			}
			// What the harm and replay steps compare plans against.
			admin := harmStep{}.adminConfig(&decideState{Tree: tree})
			if got := admin.abs[c.queue][c.label]; math.Abs(got-c.want) > 1e-4 {
				t.Fatalf("the admin's configuration gives %s in %q %v, want %v", c.queue, c.label, got, c.want)
			}
		})
	}
}

// First-seen values recorded before absolute trees were resolved carry a
// share of 0; they are filled from the live tree when the admin's value is
// still live, else from the recorded value's memory.
func TestWithAbsoluteShares(t *testing.T) {
	tree, err := schedconf.ParseTree(absoluteConf())
	if err != nil {
		t.Fatal(err)
	}
	snap := &cluster.Snapshot{Partitions: []cluster.Partition{{Name: "", Total: cluster.Resource{MemoryMB: 196608}}, {Name: "gpu-a", Total: cluster.Resource{MemoryMB: 196608}}}}
	resolveAbsolute(tree, snap)
	seen := map[string]SeenValue{
		SeenKey("root.etl", ""):      {Raw: "[memory=49152,vcores=24]", Mode: "absolute"},
		SeenKey("root.bi", ""):       {Raw: "[memory=98304,vcores=48]", Mode: "absolute"},
		SeenKey("root.bi", "gpu-a"):  {Raw: "[memory=39321,vcores=9]", Mode: "absolute", AbsShare: 0.5},
		SeenKey("root.etl", "gpu-a"): {Unset: true},
	}
	withAbsoluteShares(seen, tree, snap)
	for _, c := range []struct {
		name, key string
		want      float64
	}{
		{"still the live value: the live tree's share", SeenKey("root.etl", ""), 0.25},
		{"changed since: the recorded memory's share", SeenKey("root.bi", ""), 0.5},
		{"a share already recorded is kept", SeenKey("root.bi", "gpu-a"), 0.5},
		{"unset stays unset", SeenKey("root.etl", "gpu-a"), 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := seen[c.key].AbsShare; math.Abs(got-c.want) > 1e-9 {
				t.Fatalf("AbsShare %v, want %v", got, c.want)
			}
		})
	}
}

// Absolute children of root divide what they are configured with together,
// so a node lent, lost or added (the partition's total moves) does not
// make the admin's own shares a rescaled write.
func TestParentResources(t *testing.T) {
	tree, err := schedconf.ParseTree(absoluteConf())
	if err != nil {
		t.Fatal(err)
	}
	pct, err := schedconf.ParseTree(schedconf.Conf{"yarn.scheduler.capacity.root.queues": "a", "yarn.scheduler.capacity.root.a.capacity": "100"})
	if err != nil {
		t.Fatal(err)
	}
	// The default partition has grown by a lent 65536 MB node.
	s := &decideState{Snap: cluster.Snapshot{Partitions: []cluster.Partition{
		{Name: "", Total: cluster.Resource{MemoryMB: 196608 + 65536, VCores: 112}},
		{Name: "gpu-a", Total: cluster.Resource{MemoryMB: 131072, VCores: 32}}}}}
	for _, c := range []struct {
		name     string
		parent   *schedconf.Queue
		part     string
		mem, vcs int64
	}{
		{"root of absolute children: their sum", tree.Root, "", 49152 + 73728, 24 + 36},
		{"the same in a label", tree.Root, "gpu-a", 58982 + 39321, 14 + 9},
		{"root of percentage children: the partition's total", pct.Root, "", 196608 + 65536, 112},
	} {
		t.Run(c.name, func(t *testing.T) {
			mem, vcs := parentResources(s, c.parent, c.part)
			if mem != c.mem || vcs != c.vcs {
				t.Fatalf("got memory %d, vcores %d; want %d, %d", mem, vcs, c.mem, c.vcs)
			}
		})
	}
}
