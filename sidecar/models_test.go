package sidecar

import (
	"math"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
)

// Reduces feed the class's per-node-type reduce fits by the type they ran
// on (deadline.PhaseModel.ReduceOn); a type with fewer than
// deadline.MinReduceOnType reduces gets none.
func TestModelsFromSamplesReduceOn(t *testing.T) {
	var all []calibrate.Sample
	add := func(typ, nodeType string, n int, secs float64) {
		for i := 0; i < n; i++ {
			all = append(all, calibrate.Sample{Class: "train", Type: typ, NodeType: nodeType, Elapsed: time.Duration(secs * float64(time.Second))})
		}
	}
	add("MAP", "cpu", 3, 120)
	add("REDUCE", "gpu", 5, 15)
	add("REDUCE", "cpu", 6, 60)
	add("REDUCE", "cpu-new", 2, 40)
	m, ok := ModelsFromSamples(all)["train"]
	if !ok {
		t.Fatal("no model for train")
	}
	tests := []struct {
		nodeType string
		mean     float64 // 0: no fit
	}{{"gpu", 15}, {"cpu", 60}, {"cpu-new", 0}}
	for _, tt := range tests {
		l, ok := m.ReduceOn[tt.nodeType]
		switch {
		case tt.mean == 0 && ok:
			t.Errorf("%s: fit %+v from 2 reduces", tt.nodeType, l)
		case tt.mean > 0 && (!ok || math.Abs(l.Mean()-tt.mean) > 1e-6):
			t.Errorf("%s: fit %+v (mean %.2f), want mean %.0f", tt.nodeType, l, l.Mean(), tt.mean)
		}
	}
}
