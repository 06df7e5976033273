package learn

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

// A class's typical run is the median of its runs' sizes (maps from each
// sample's JobMaps, reduces counted per run).
func TestModelsRunSize(t *testing.T) {
	var all []calibrate.Sample
	add := func(job string, maps, reduces int) {
		all = append(all, calibrate.Sample{Class: "join", JobID: job, Type: "MAP", Elapsed: 67 * time.Second, JobMaps: maps},
			calibrate.Sample{Class: "join", JobID: job, Type: "MAP", Elapsed: 70 * time.Second, JobMaps: maps})
		for i := 0; i < reduces; i++ {
			all = append(all, calibrate.Sample{Class: "join", JobID: job, Type: "REDUCE", Elapsed: 20 * time.Second, JobMaps: maps})
		}
	}
	add("a", 60, 2)
	add("b", 50, 1)
	add("c", 70, 3)
	m := ModelsFromSamples(all)["join"]
	if m.RunMaps != 60 || m.RunReduces != 2 {
		t.Errorf("typical run %d maps, %d reduces, want the medians 60 and 2", m.RunMaps, m.RunReduces)
	}
	if m := ModelsFromSamples(all[:2])["join"]; m.RunMaps != 60 || m.RunReduces != 0 {
		t.Errorf("one run without reduces: %d maps, %d reduces, want 60 and 0", m.RunMaps, m.RunReduces)
	}
}
