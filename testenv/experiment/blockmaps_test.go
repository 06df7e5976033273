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
	// Which localities a run reads at depends on its schedule: on seed 1
	// the plan keeps crunch at its guarantee at home (servedFirstStep) and
	// the compute nodes see almost no reads. Two seeds: every bandwidth
	// learned from ≥10 samples must be right on each, and together they
	// must cover at least two (type, locality) pairs.
	covered := map[string]bool{}
	for _, seed := range []int64{1, 2} {
		res, err := RunSidecar(smallDataHeavy, seed, SidecarOptions{BlockMaps: true})
		if err != nil {
			t.Fatal(err)
		}
		calls := 0
		for _, n := range res.NameNodeCalls {
			calls += n
		}
		if calls == 0 {
			t.Fatalf("seed %d: the sidecar made no NameNode call", seed)
		}
		if res.Status.Inputs == nil {
			t.Fatalf("seed %d: status has no inputs report", seed)
		}
		want := map[string]float64{"NODE_LOCAL": sc.Bandwidth.NodeLocal, "RACK_LOCAL": sc.Bandwidth.RackLocal, "OFF_SWITCH": sc.Bandwidth.OffSwitch}
		for _, typ := range []string{"storage", "compute"} {
			bw, ok := res.Bandwidths[typ]
			if !ok {
				t.Errorf("seed %d: no bandwidth learned for %s: %+v", seed, typ, res.Bandwidths)
				continue
			}
			got := map[string]float64{"NODE_LOCAL": bw.NodeLocal, "RACK_LOCAL": bw.RackLocal, "OFF_SWITCH": bw.OffSwitch}
			for loc, w := range want {
				if typ == "compute" && loc == "NODE_LOCAL" {
					if bw.Samples[loc] != 0 {
						t.Errorf("seed %d: compute-only nodes have no DataNode, yet %d node-local samples", seed, bw.Samples[loc])
					}
					continue
				}
				// Storage nodes read their own blocks (the scheduler waits
				// for node locality): a locality that never happened on a
				// type is not asked for.
				if bw.Samples[loc] < 10 {
					continue
				}
				covered[typ+" "+loc] = true
				if g := got[loc]; math.Abs(g-w)/w > 0.15 {
					t.Errorf("seed %d: %s %s: learned %.1f MiB/s from %d samples, scenario reads at %.0f", seed, typ, loc, g, bw.Samples[loc], w)
				}
			}
			t.Logf("seed %d %s: node-local %.1f (%d), rack-local %.1f (%d), off-switch %.1f (%d) MiB/s", seed, typ,
				bw.NodeLocal, bw.Samples["NODE_LOCAL"], bw.RackLocal, bw.Samples["RACK_LOCAL"], bw.OffSwitch, bw.Samples["OFF_SWITCH"])
		}
	}
	// Node-local on storage and rack-local on the compute-only nodes (they
	// share racks with DataNodes; off-switch reads are rare, as the
	// scheduler prefers a block in the rack).
	if len(covered) < 2 {
		t.Errorf("only %d (type, locality) bandwidths measured over both seeds, want ≥2: %v", len(covered), covered)
	}
}

// smallDataHeavy is data-heavy with fewer jobs, so the test takes seconds.
const smallDataHeavy = "testdata/data-heavy-small.yaml"
