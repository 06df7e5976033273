package main

import (
	"math"
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

// The harmless best static is the fastest candidate that slows no class
// more than 2% against stock (the family's first member) on the sweep.
func TestBestHarmless(t *testing.T) {
	stock := map[string]float64{"etl": 100, "ml": 100}
	cases := []struct {
		name   string
		scores []float64
		means  []map[string]float64
		want   int
	}{
		{"fastest is harmless", []float64{100, 80, 90},
			[]map[string]float64{stock, {"etl": 101, "ml": 60}, {"etl": 95, "ml": 85}}, 1},
		{"fastest slows a class: next", []float64{100, 70, 90},
			[]map[string]float64{stock, {"etl": 110, "ml": 30}, {"etl": 95, "ml": 85}}, 2},
		{"none harmless: stock", []float64{100, 70},
			[]map[string]float64{stock, {"etl": 103, "ml": 40}}, 0},
		{"rejected candidate skipped", []float64{100, math.Inf(1), 95},
			[]map[string]float64{stock, nil, {"etl": 95, "ml": 95}}, 2},
	}
	for _, c := range cases {
		if got := bestHarmless(c.scores, c.means); got != c.want {
			t.Errorf("%s: got %d, want %d", c.name, got, c.want)
		}
	}
}
