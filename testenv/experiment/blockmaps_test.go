package experiment

import (
	"math"
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
)

// On the data-heavy mini cluster the sidecar reads every job's block map
// from the mini NameNode, infers each finished map's locality from it, and
// learns read bandwidths within 15% of what the scenario's reads run at.
func TestBlockMapsLearnBandwidth(t *testing.T) {
	sc, err := sim.LoadScenario(smallDataHeavy)
	if err != nil {
		t.Fatal(err)
	}
	res, err := RunSidecar(smallDataHeavy, 1, SidecarOptions{BlockMaps: true})
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	for _, n := range res.NameNodeCalls {
		calls += n
	}
	if calls == 0 {
		t.Fatal("the sidecar made no NameNode call")
	}
	if res.Status.Inputs == nil {
		t.Fatal("status has no inputs report")
	}
	measured := 0
	want := map[string]float64{"NODE_LOCAL": sc.Bandwidth.NodeLocal, "RACK_LOCAL": sc.Bandwidth.RackLocal, "OFF_SWITCH": sc.Bandwidth.OffSwitch}
	for _, typ := range []string{"storage", "compute"} {
		bw, ok := res.Bandwidths[typ]
		if !ok {
			t.Errorf("no bandwidth learned for %s: %+v", typ, res.Bandwidths)
			continue
		}
		got := map[string]float64{"NODE_LOCAL": bw.NodeLocal, "RACK_LOCAL": bw.RackLocal, "OFF_SWITCH": bw.OffSwitch}
		for loc, w := range want {
			if typ == "compute" && loc == "NODE_LOCAL" {
				if bw.Samples[loc] != 0 {
					t.Errorf("compute-only nodes have no DataNode, yet %d node-local samples", bw.Samples[loc])
				}
				continue
			}
			// Storage nodes read their own blocks (the scheduler waits
			// for node locality): a locality that never happened on a
			// type is not asked for.
			if bw.Samples[loc] < 10 {
				continue
			}
			measured++
			if g := got[loc]; math.Abs(g-w)/w > 0.15 {
				t.Errorf("%s %s: learned %.1f MiB/s from %d samples, scenario reads at %.0f", typ, loc, g, bw.Samples[loc], w)
			}
		}
		t.Logf("%s: node-local %.1f (%d), rack-local %.1f (%d), off-switch %.1f (%d) MiB/s", typ,
			bw.NodeLocal, bw.Samples["NODE_LOCAL"], bw.RackLocal, bw.Samples["RACK_LOCAL"], bw.OffSwitch, bw.Samples["OFF_SWITCH"])
	}
	// Node-local on storage and rack-local on the compute-only nodes (they
	// share racks with DataNodes; off-switch reads are rare, as the
	// scheduler prefers a block in the rack).
	if measured < 2 {
		t.Errorf("only %d (type, locality) bandwidths measured, want ≥2: %+v", measured, res.Bandwidths)
	}
}

// smallDataHeavy is data-heavy with fewer jobs, so the test takes seconds.
const smallDataHeavy = "testdata/data-heavy-small.yaml"
