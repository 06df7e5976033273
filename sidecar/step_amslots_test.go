package sidecar

import (
	"reflect"
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// lee-toy's nodes (issue 16): N1 8 GB / 2 vcores in partition n1, N2
// 16 GB / 4 vcores and the am node 4 GB / 4 vcores in the default one;
// AMs of 1.5 GB / 1 vcore.
func TestAMSlotsStep(t *testing.T) {
	node := func(id string, mb, vc int64) cluster.Node {
		return cluster.Node{ID: id, State: cluster.NodeRunning, Total: cluster.Resource{MemoryMB: mb, VCores: vc}}
	}
	nodes := []cluster.Node{node("n1:1", 8192, 2), node("n2:1", 16384, 4), node("am:1", 4096, 4)}
	types := map[string]string{"n1:1": "N1", "n2:1": "N2", "am:1": "am"}
	parts := []cluster.Partition{{Name: "n1", NodeIDs: []string{"n1:1"}}, {Name: "", NodeIDs: []string{"n2:1", "am:1"}}}
	am := func(id, node string) cluster.App {
		return cluster.App{ID: id, State: cluster.AppRunning, AMNodeID: node,
			UsageByPartition: map[string]cluster.AppPartitionUsage{"": {AMUsed: cluster.Resource{MemoryMB: 1536, VCores: 1}}}}
	}
	map4 := cluster.Resource{MemoryMB: 4096, VCores: 1}
	for _, tc := range []struct {
		name string
		apps []cluster.App
		want map[string]map[string]int64 // partition → type → slots
	}{
		{"no AMs: the nominal slots", nil,
			map[string]map[string]int64{"n1": {"N1": 2}, "": {"N2": 4, "am": 1}}},
		{"both AMs on N1: no map fits there", []cluster.App{am("a", "n1:1"), am("b", "n1:1")},
			map[string]map[string]int64{"n1": {"N1": 0}, "": {"N2": 4, "am": 1}}},
		{"one AM on N1, one on the am node", []cluster.App{am("a", "n1:1"), am("b", "am:1")},
			map[string]map[string]int64{"n1": {"N1": 1}, "": {"N2": 4, "am": 0}}},
		{"a finished app's AM holds nothing", []cluster.App{{ID: "c", State: cluster.AppFinished, AMNodeID: "n1:1",
			UsageByPartition: map[string]cluster.AppPartitionUsage{"": {AMUsed: cluster.Resource{MemoryMB: 1536, VCores: 1}}}}},
			map[string]map[string]int64{"n1": {"N1": 2}, "": {"N2": 4, "am": 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &decideState{Snap: cluster.Snapshot{Nodes: nodes, Partitions: parts, Apps: tc.apps}, Slot: map4, Types: types}
			for _, st := range []decideStep{slotsStep{}, amSlotsStep{}} {
				if err := st.Run(s); err != nil {
					t.Fatal(err)
				}
			}
			got := map[string]map[string]int64{}
			for _, p := range s.Parts {
				got[p.Name] = p.Slots
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("slots %v, want %v", got, tc.want)
			}
		})
	}
}
