package main

import (
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/gen"
)

// Every held-out and tuning cluster's static sweep passes the Capacity
// Scheduler's validation in its tree's own mode (treeFamily).
func TestTreeFamilyValid(t *testing.T) {
	for _, seed := range append(gen.TuningSeeds(30), gen.HeldOutSeeds(30)...) {
		sc, info, err := gen.Generate(seed, gen.Options{})
		if err != nil {
			t.Fatal(err)
		}
		fam, err := treeFamily(sc)
		if err != nil {
			t.Fatalf("cluster %d (%s): %v", seed, info, err)
		}
		if len(sc.Labels) > 0 && len(fam) < 2 {
			t.Errorf("cluster %d: only %d members", seed, len(fam))
		}
	}
}
