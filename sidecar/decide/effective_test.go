package decide

import (
	"math"
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/affinity"
	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/progress"
)

// Lee §4.3.1.2 (T = Tr + Tp) on the data-heavy layout, by hand: a map of
// 128 MiB, 1 s of processing on storage nodes reading at 400 MiB/s
// node-local (T = 1 + 0.32 = 1.32 s), 1.5x faster CPU on compute-only
// nodes reading at 100 MiB/s rack-local (T = 0.667 + 1.28 = 1.947 s):
// effective rate 1.32/1.947 = 0.678, though its CPU is 1.5x — an I/O-bound
// queue is not sent there. A CPU-bound class (60 s, 3x) keeps most of its
// gain: 60.32/21.28 = 2.835.
func TestEffectiveRatesLee(t *testing.T) {
	loc := map[string]map[string]affinity.Locality{
		"scan":   {"storage": {NodeLocal: 1}, "compute": {RackLocal: 1}, "gpu": {}},
		"crunch": {"storage": {NodeLocal: 1}, "compute": {RackLocal: 1}},
	}
	rc := ReadCost{
		Processing: map[string]calibrate.Processing{
			"scan":   {Seconds: map[string]float64{"storage": 1, "compute": 1 / 1.5}, BlockMiB: 128},
			"crunch": {Seconds: map[string]float64{"storage": 60, "compute": 20}, BlockMiB: 128},
		},
		Bandwidth: map[string]calibrate.ReadBandwidth{
			"storage": {NodeLocal: 400},
			"compute": {RackLocal: 100},
			"gpu":     {OffSwitch: 40},
		},
		Prior: affinity.Bandwidth{NodeLocal: 1, RackLocal: 1, OffSwitch: 1}, // must be overridden by what was measured
	}
	base := progress.RateMap{"scan": {"storage": 1, "compute": 1.5}, "crunch": {"storage": 1, "compute": 3}, "other": {"compute": 2}}
	rates, notes := EffectiveRates(base, func(string) string { return "storage" }, loc, rc)
	cases := []struct {
		class, typ string
		want       float64
	}{
		{"scan", "storage", 1},
		{"scan", "compute", 1.32 / (1/1.5 + 1.28)},
		{"crunch", "compute", 60.32 / 21.28},
		{"other", "compute", 2}, // no input known: the CR table's ratio
	}
	for _, c := range cases {
		got, ok := rates.Rate(c.class, c.typ)
		if !ok || math.Abs(got-c.want) > 1e-3 {
			t.Errorf("%s on %s: %.4f (%v), want %.4f", c.class, c.typ, got, ok, c.want)
		}
	}
	// Processing unknown on gpu and no CR there: left unknown, so the
	// plan's calibration share still measures it.
	if r, ok := rates.Rate("scan", "gpu"); ok {
		t.Errorf("scan on gpu (nothing measured) = %v, want unknown", r)
	}
	if len(notes) != 2 {
		t.Errorf("notes %q", notes)
	}
}
