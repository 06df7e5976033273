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

// Fresh tuning clusters follow the first ones and never reach the
// held-out seeds.
func TestTuningSeedsAfter(t *testing.T) {
	for _, c := range []struct {
		skip, n     int
		first, last int64
		count       int
	}{
		{0, 3, 1, 3, 3},
		{60, 60, 61, 120, 60},
		{990, 30, 991, 1000, 10},
		{1000, 5, 0, 0, 0},
	} {
		got := TuningSeedsAfter(c.skip, c.n)
		if len(got) != c.count || (c.count > 0 && (got[0] != c.first || got[len(got)-1] != c.last)) {
			t.Errorf("TuningSeedsAfter(%d, %d) = %v, want %d seeds %d..%d", c.skip, c.n, got, c.count, c.first, c.last)
		}
		for _, s := range got {
			if s >= HeldOutSeeds(1)[0] {
				t.Errorf("TuningSeedsAfter(%d, %d) reaches held-out seed %d", c.skip, c.n, s)
			}
		}
	}
}
