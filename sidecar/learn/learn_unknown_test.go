package learn

import (
	"fmt"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
)

// mapSamples are n map samples of a class on a node type from one job.
func mapSamples(class, typ, job string, n int) []calibrate.Sample {
	out := make([]calibrate.Sample, n)
	for i := range out {
		out[i] = calibrate.Sample{AttemptID: fmt.Sprintf("%s-%s-%d", job, typ, i), JobID: job, Class: class, NodeType: typ,
			Finish: time.Unix(1000, 0), Elapsed: 30 * time.Second, Bytes: 128 << 20}
	}
	return out
}

func TestMeasuresUnknown(t *testing.T) {
	// History before: report measured on cpu-old and cpu-new only.
	before := append(mapSamples("report", "cpu-old", "j1", 5), mapSamples("report", "cpu-new", "j1", 5)...)
	table := calibrate.Estimate(before, calibrate.Options{MinSamples: 3})
	if _, known := table.Ratio("report", "gpu"); known {
		t.Fatal("setup: report on gpu must be unknown")
	}
	reduce := calibrate.Sample{AttemptID: "r", JobID: "j2", Class: "report", NodeType: "gpu", Type: "REDUCE", Elapsed: 20 * time.Second}
	cases := []struct {
		name  string
		table *calibrate.Table
		fresh []calibrate.Sample
		min   int
		want  bool
	}{
		{"a known cell waits for RecomputeEvery", table, mapSamples("report", "cpu-old", "j2", 4), 3, false},
		{"a calibration job completes the unknown cell", table, mapSamples("report", "gpu", "j2", 4), 3, true},
		{"exactly min samples complete it", table, mapSamples("report", "gpu", "j2", 3), 3, true},
		{"fewer than min samples keep waiting", table, mapSamples("report", "gpu", "j2", 2), 3, false},
		{"reduces do not measure a rate", table, []calibrate.Sample{reduce, reduce, reduce}, 3, false},
		{"no table yet: any completed cell", nil, mapSamples("sort", "cpu-old", "j3", 3), 3, true},
		{"default min samples is Estimate's 3", table, mapSamples("report", "gpu", "j2", 3), 0, true},
		{"nothing fresh", table, nil, 3, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			all := append(append([]calibrate.Sample(nil), before...), c.fresh...)
			if got := measuresUnknown(c.table, c.fresh, all, c.min); got != c.want {
				t.Fatalf("measuresUnknown = %v, want %v", got, c.want)
			}
		})
	}
	// Samples stored before this ingest count toward the cell: two earlier
	// gpu maps plus one fresh one make three.
	earlier := mapSamples("report", "gpu", "j0", 2)
	fresh := mapSamples("report", "gpu", "j2", 1)
	all := append(append(append([]calibrate.Sample(nil), before...), earlier...), fresh...)
	if !measuresUnknown(table, fresh, all, 3) {
		t.Fatal("earlier samples of the cell must count toward min samples")
	}
}
