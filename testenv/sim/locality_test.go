package sim

import "testing"

// Delay scheduling's thresholds as RegularContainerAllocator computes them
// (getActualNodeLocalityDelay, getActualRackLocalityDelay, canAssign for
// OFF_SWITCH with the locality wait factor): every wait is capped at the
// cluster's node count. The mini cluster once waited 40 and 80
// opportunities on 10-node clusters, which made stock's locality waits,
// and what rack-locality-full-reset=false saves, several times Hadoop's.
func TestLocalityDelays(t *testing.T) {
	running := func(n int) []*node {
		out := make([]*node, n)
		for i := range out {
			out[i] = &node{state: "RUNNING"}
		}
		return out
	}
	appWith := func(hosts, racks, pending int) *app {
		a := &app{pendingByHost: map[string][]int{}, pendingByRack: map[string][]int{}, pendingMaps: map[int]bool{}}
		for i := 0; i < hosts; i++ {
			a.pendingByHost[string(rune('a'+i))] = []int{0}
		}
		for i := 0; i < racks; i++ {
			a.pendingByRack[string(rune('A'+i))] = []int{0}
		}
		for i := 0; i < pending; i++ {
			a.pendingMaps[i] = true
		}
		return a
	}
	for _, tc := range []struct {
		name                string
		nodes               int
		conf                map[string]string
		a                   *app
		wantNode, wantOffSw int
	}{
		{"10 nodes: node-locality-delay 40 is capped at 10; 30 maps asking 9 hosts and 1 rack wait 10", 10, nil, appWith(9, 1, 30), 10, 10},
		{"100 nodes: 40 stands; 30 maps over 9 hosts and 1 rack (10 locations besides ANY) wait 30 x 10/100", 100, nil, appWith(9, 1, 30), 40, 3},
		{"100 nodes, 200 maps over 99 hosts and 1 rack: factor 1, capped at 100", 100, nil, appWith(99, 1, 200), 40, 100},
		{"no location asked: no off-switch wait", 10, nil, appWith(0, 0, 5), 10, 0},
		{"rack-locality-additional-delay 5: node delay plus 5, capped", 100, map[string]string{"yarn.scheduler.capacity.rack-locality-additional-delay": "5"}, appWith(9, 1, 30), 40, 45},
		{"rack-locality-additional-delay 50 on 60 nodes: capped at 60", 60, map[string]string{"yarn.scheduler.capacity.rack-locality-additional-delay": "50"}, appWith(9, 1, 30), 40, 60},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &Cluster{nodes: running(tc.nodes), conf: tc.conf}
			nd, add := c.localityDelays()
			if nd != tc.wantNode {
				t.Fatalf("node delay %d, want %d", nd, tc.wantNode)
			}
			if got := c.offSwitchDelay(tc.a, nd, add); got != tc.wantOffSw {
				t.Fatalf("off-switch delay %d, want %d", got, tc.wantOffSw)
			}
		})
	}
}
