package gen

import (
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
)

// Every tuning and held-out cluster is a scenario the mini cluster accepts
// (its queues pass the Capacity Scheduler's validation), and a seed always
// draws the same cluster.
func TestGenerateValidAndDeterministic(t *testing.T) {
	modes := map[Mode]int{}
	nested := 0
	for _, seed := range append(TuningSeeds(30), HeldOutSeeds(30)...) {
		sc, info, err := Generate(seed, Options{})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if _, err := sim.NewCluster(sc, 1); err != nil {
			t.Fatalf("seed %d (%s): %v", seed, info, err)
		}
		again, _, err := Generate(seed, Options{})
		if err != nil || len(again.Generators) != len(sc.Generators) || again.Conf["yarn.scheduler.capacity.root.queues"] != sc.Conf["yarn.scheduler.capacity.root.queues"] {
			t.Fatalf("seed %d: not deterministic", seed)
		}
		modes[info.Mode]++
		if info.Nested {
			nested++
		}
	}
	if len(modes) != 3 || nested == 0 || nested == 60 {
		t.Errorf("modes %v, nested %d of 60: want every mode and both tree shapes", modes, nested)
	}
}
