package progress

import (
	"math"
	"strconv"
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// Compute on snapshots: Lee's worked example (digest 000 §1.3, Fig. 4.4,
// slots of 4 GB / 1 vcore, no AM containers) and the lee-toy case where
// both AMs sit on N1 (issue 16): the AM is no S_j container, and the usable
// bound counts only the 4 GB maps that fit beside the AMs.
func TestComputeTaskContainersAndUsableBound(t *testing.T) {
	slot4 := cluster.Resource{MemoryMB: 4096, VCores: 1}
	node := func(id string, mb, vc int64) cluster.Node {
		return cluster.Node{ID: id, State: cluster.NodeRunning, Total: cluster.Resource{MemoryMB: mb, VCores: vc}}
	}
	amUse := func(mb, vc int64) map[string]cluster.AppPartitionUsage {
		return map[string]cluster.AppPartitionUsage{"": {AMUsed: cluster.Resource{MemoryMB: mb, VCores: vc}}}
	}
	types := map[string]string{"n1:1": "N1", "n2:1": "N2", "am:1": "am"}
	rates := RateMap{"A": {"N1": 3, "N2": 1, "am": 1}, "B": {"N1": 1, "N2": 1, "am": 1}}
	cases := []struct {
		name                    string
		nodes                   []cluster.Node
		apps                    []cluster.App
		slot                    cluster.Resource
		psA, psB, bound, usable float64
	}{
		{
			name:  "Lee Fig. 4.4, no AMs: A N1,N1,N2 / B N2,N2,N2",
			nodes: []cluster.Node{node("n1:1", 8192, 2), node("n2:1", 16384, 4)},
			apps: []cluster.App{
				{ID: "a", Name: "A", State: cluster.AppRunning, ContainersByNode: map[string]int{"n1:1": 2, "n2:1": 1}},
				{ID: "b", Name: "B", State: cluster.AppRunning, ContainersByNode: map[string]int{"n2:1": 3}},
			},
			slot: slot4,
			// denom A = 2·3+4 = 10, B = 6; bound = 2·3/10 + 4·1/6.
			psA: 0.7, psB: 0.5, bound: 0.6 + 4.0/6, usable: 0.6 + 4.0/6,
		},
		{
			name:  "lee-toy: both AMs on N1, A holds only its AM, B its AM + 4 maps on N2 + 1 on am",
			nodes: []cluster.Node{node("n1:1", 8192, 2), node("n2:1", 16384, 4), node("am:1", 4096, 4)},
			apps: []cluster.App{
				{ID: "a", Name: "A", State: cluster.AppRunning, AMNodeID: "n1:1", RunningContainers: 1,
					Allocated: cluster.Resource{MemoryMB: 1536, VCores: 1}, UsageByPartition: amUse(1536, 1),
					ContainersByNode: map[string]int{"n1:1": 1}},
				{ID: "b", Name: "B", State: cluster.AppRunning, AMNodeID: "n1:1", RunningContainers: 6,
					Allocated: cluster.Resource{MemoryMB: 1536 + 5*4096, VCores: 6}, UsageByPartition: amUse(1536, 1),
					ContainersByNode: map[string]int{"n1:1": 1, "n2:1": 4, "am:1": 1}},
			},
			slot: cluster.Resource{MemoryMB: 2048, VCores: 1}, // the old bound's slot
			// Old slots N1 2, N2 4, am 2: denom A = 12, B = 8; bound =
			// 2·3/12 + 4·1/8 + 2·1/8 = 1.25. PS counts tasks only: A 0, B 5/8.
			// Usable: N1 has 0 vcores left; B's measured map is 4 GB: N2 4·1/8,
			// am 1·1/8; A's map size is not measurable (no task), so its
			// stand-in is the 2 GB slot: N2 4·1/12, am 2·1/12 = 1/6 > 1/8.
			psA: 0, psB: 5.0 / 8, bound: 1.25, usable: 0.5 + 1.0/6,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sh := Compute(Input{Snap: cluster.Snapshot{Nodes: tc.nodes, Apps: tc.apps}, NodeType: types,
				ClassOf: func(a cluster.App) string { return a.Name }, Rates: rates, Slot: tc.slot})
			ps := map[string]float64{}
			for _, j := range sh.Jobs {
				ps[j.AppID] = j.PS
			}
			near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
			if !near(ps["a"], tc.psA) || !near(ps["b"], tc.psB) {
				t.Fatalf("PS(A)=%v PS(B)=%v, want %v %v", ps["a"], ps["b"], tc.psA, tc.psB)
			}
			if !near(sh.Bound, tc.bound) || !near(sh.UsableBound, tc.usable) {
				t.Fatalf("bound %v usable %v, want %v %v", sh.Bound, sh.UsableBound, tc.bound, tc.usable)
			}
		})
	}
}

// countingRates counts the rate lookups Compute makes.
type countingRates struct {
	RateMap
	n *int
}

func (c countingRates) Rate(class, typ string) (float64, bool) {
	*c.n++
	return c.RateMap.Rate(class, typ)
}

// The usable bound weighs each job kind once per node type and free
// capacity, not once per node (issue 19: 10,000 nodes × the kinds): with
// the same jobs on 4× the nodes of the same two types, Compute looks up
// rates as often (the jobs' denominators grow with the nodes, so the
// bound, a sum of shares, stays where it was).
func TestUsableBoundLookupsIndependentOfNodes(t *testing.T) {
	rates := RateMap{}
	var apps []cluster.App
	for c := range 20 {
		class := string(rune('a' + c))
		rates[class] = map[string]float64{"fast": 2, "slow": 1}
		apps = append(apps, cluster.App{ID: class, Name: class, State: cluster.AppRunning})
	}
	run := func(nodes int) (int, float64) {
		snap := cluster.Snapshot{Apps: apps}
		types := map[string]string{}
		for i := range nodes {
			id := string(rune('A'+i%2)) + strconv.Itoa(i)
			snap.Nodes = append(snap.Nodes, cluster.Node{ID: id, State: cluster.NodeRunning, Total: cluster.Resource{MemoryMB: 8192, VCores: 4}})
			types[id] = []string{"fast", "slow"}[i%2]
		}
		n := 0
		sh := Compute(Input{Snap: snap, NodeType: types, ClassOf: func(a cluster.App) string { return a.Name }, Rates: countingRates{rates, &n}})
		return n, sh.UsableBound
	}
	small, boundSmall := run(100)
	large, boundLarge := run(400)
	if large != small {
		t.Fatalf("rate lookups: %d on 100 nodes, %d on 400, want the same", small, large)
	}
	if boundSmall <= 0 || math.Abs(boundLarge-boundSmall) > 1e-9 {
		t.Fatalf("usable bound %v on 400 nodes, %v on 100: want the same, above 0", boundLarge, boundSmall)
	}
}
