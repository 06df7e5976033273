package yarn

import (
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

func TestEstimateAMUse(t *testing.T) {
	mb := func(m int64) cluster.Resource { return cluster.Resource{MemoryMB: m, VCores: m / 1024} }
	leaf := func(path string, am map[string]int64) cluster.Queue {
		q := cluster.Queue{Path: path, Leaf: true, ByPartition: map[string]cluster.QueueCapacity{}}
		for p, m := range am {
			q.ByPartition[p] = cluster.QueueCapacity{AMUsed: mb(m)}
		}
		return q
	}
	// filled is an app after fillUsage: its use split, AM use unknown
	// unless am > 0 (kept).
	filled := func(id, queue, amNode string, am int64) cluster.App {
		u := map[string]cluster.AppPartitionUsage{"": {Used: mb(4096)}}
		if am > 0 {
			u[""] = cluster.AppPartitionUsage{Used: mb(4096), AMUsed: mb(am)}
		}
		return cluster.App{ID: id, Queue: queue, AMNodeID: amNode, AMContainerID: "am-" + id, Allocated: mb(4096), RunningContainers: 3, UsageByPartition: u}
	}
	nodes := map[string]string{"n1": "", "n2": "", "g1": "gpu"}
	for _, tc := range []struct {
		name     string
		apps     []cluster.App
		accepted []cluster.App
		kept     map[string]usageEntry
		queues   []cluster.Queue
		want     map[string]cluster.Resource // AM use summed over partitions
		est      map[string]bool
	}{
		{
			name:   "the queue's AM use shared evenly",
			apps:   []cluster.App{filled("a", "root.q", "n1", 0), filled("b", "root.q", "n2", 0)},
			queues: []cluster.Queue{leaf("root.q", map[string]int64{"": 2048})},
			want:   map[string]cluster.Resource{"a": mb(1024), "b": mb(1024)},
			est:    map[string]bool{"a": true, "b": true},
		},
		{
			name:   "known AM use is taken off first",
			apps:   []cluster.App{filled("a", "root.q", "n1", 1536), filled("b", "root.q", "n2", 0)},
			queues: []cluster.Queue{leaf("root.q", map[string]int64{"": 2560})},
			want:   map[string]cluster.Resource{"a": mb(1536), "b": mb(1024)},
			est:    map[string]bool{"b": true},
		},
		{
			name:   "by the AM node's partition",
			apps:   []cluster.App{filled("a", "root.q", "g1", 0), filled("b", "root.q", "n1", 0)},
			queues: []cluster.Queue{leaf("root.q", map[string]int64{"": 1024, "gpu": 2048})},
			want:   map[string]cluster.Resource{"a": mb(2048), "b": mb(1024)},
			est:    map[string]bool{"a": true, "b": true},
		},
		{
			name:   "a kept AM container with no AM use is not estimated",
			apps:   []cluster.App{filled("a", "root.q", "n1", 0)},
			kept:   map[string]usageEntry{"a": {amContainer: "am-a"}},
			queues: []cluster.Queue{leaf("root.q", map[string]int64{"": 1024})},
			want:   map[string]cluster.Resource{},
		},
		{
			name:   "no AM node, an AM node not listed, or no AM use said: nothing",
			apps:   []cluster.App{filled("a", "root.q", "", 0), filled("b", "root.q", "gone", 0), filled("c", "root.r", "n1", 0)},
			queues: []cluster.Queue{leaf("root.q", map[string]int64{"": 2048}), leaf("root.r", nil)},
			want:   map[string]cluster.Resource{},
		},
		{
			name: "an ACCEPTED app whose AM is launching holds its share",
			apps: []cluster.App{filled("a", "root.q", "n1", 0)},
			accepted: []cluster.App{{ID: "l", Queue: "root.q", AMNodeID: "n2", RunningContainers: 1},
				{ID: "w", Queue: "root.q"}}, // no AM container yet: holds nothing
			queues: []cluster.Queue{leaf("root.q", map[string]int64{"": 2048})},
			want:   map[string]cluster.Resource{"a": mb(1024)},
			est:    map[string]bool{"a": true},
		},
		{
			name:   "never more than the app holds",
			apps:   []cluster.App{filled("a", "root.q", "n1", 0)},
			queues: []cluster.Queue{leaf("root.q", map[string]int64{"": 8192})},
			want:   map[string]cluster.Resource{"a": mb(4096)},
			est:    map[string]bool{"a": true},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			apps := append([]cluster.App(nil), tc.apps...)
			n := estimateAMUse(apps, tc.accepted, tc.kept, tc.queues, nodes)
			if n != len(tc.est) {
				t.Errorf("estimated %d, want %d", n, len(tc.est))
			}
			for _, a := range apps {
				if got := amResourceOf(a); got != tc.want[a.ID] {
					t.Errorf("%s: AM use %+v, want %+v", a.ID, got, tc.want[a.ID])
				}
				if a.AMEstimated != tc.est[a.ID] {
					t.Errorf("%s: AMEstimated %v, want %v", a.ID, a.AMEstimated, tc.est[a.ID])
				}
			}
		})
	}
}

func TestSeenTypes(t *testing.T) {
	node := func(id, partition, typ string, usable bool) cluster.Node {
		state := cluster.NodeRunning
		if !usable {
			state = cluster.NodeState("LOST")
		}
		return cluster.Node{ID: id, Host: typ, Partition: partition, State: state}
	}
	byHost := func(n cluster.Node) string { return n.Host }
	for _, tc := range []struct {
		name     string
		nodes    []cluster.Node
		nodeType func(cluster.Node) string
		want     nodeTypesSeen
	}{
		{"no node types", []cluster.Node{node("a", "", "x", true)}, nil, typesNotGiven},
		{"every partition mixed", []cluster.Node{node("a", "", "x", true), node("b", "", "y", true), node("c", "gpu", "x", true), node("d", "gpu", "z", true)}, byHost, typesMixed},
		{"one partition of one type", []cluster.Node{node("a", "", "x", true), node("b", "", "y", true), node("c", "gpu", "z", true)}, byHost, typesSingle},
		{"an unusable node does not mix a partition", []cluster.Node{node("a", "", "x", true), node("b", "", "y", false)}, byHost, typesSingle},
	} {
		if got := seenTypes(tc.nodes, tc.nodeType); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
