package deadline

import (
	"math"
	"testing"
)

func TestShrunkRatio(t *testing.T) {
	for _, tc := range []struct {
		name      string
		residuals []float64
		want      float64
	}{
		{"no residuals: the model as it is", nil, 1},
		{"non-positive ratios dropped", []float64{0, -1}, 1},
		{"all equal: no noise, applied whole", []float64{1.2, 1.2, 1.2, 1.2}, 1.2},
		// logs ±ln 1.5 around 0: median 0, nothing to apply.
		{"centred on 1", []float64{1 / 1.5, 1, 1.5}, 1},
		// logs ln(1.1)+{−d, 0, +d}, d = ln 2: MAD d, s = 1.4826·d,
		// v = π/2·s²/3 far above ln(1.1)² → shrunk to 1.
		{"small shift in wide noise", []float64{1.1 / 2, 1.1, 1.1 * 2}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ShrunkRatio(tc.residuals); math.Abs(got-tc.want) > 1e-9 {
				t.Errorf("ShrunkRatio(%v) = %v, want %v", tc.residuals, got, tc.want)
			}
		})
	}
	// A shift well outside its noise is applied nearly whole, and always
	// between 1 and the median residual.
	rs := []float64{1.28, 1.3, 1.3, 1.32, 1.29, 1.31, 1.3, 1.3, 1.33, 1.27}
	got := ShrunkRatio(rs)
	if !(got > 1.29 && got <= 1.3+1e-9) {
		t.Errorf("ShrunkRatio(tight around 1.3) = %v, want in (1.29, 1.3]", got)
	}
	// Partial shrinkage: m = ln 1.2, MAD 0.1 → w = 1 − (π/2)(0.14826²)/5/m².
	rs = []float64{1.2 * math.Exp(-0.1), 1.2 * math.Exp(-0.1), 1.2, 1.2 * math.Exp(0.1), 1.2 * math.Exp(0.1)}
	m := math.Log(1.2)
	w := 1 - math.Pi/2*0.14826*0.14826/5/(m*m)
	if got, want := ShrunkRatio(rs), math.Exp(w*m); math.Abs(got-want) > 1e-6 {
		t.Errorf("ShrunkRatio(partial) = %v, want %v", got, want)
	}
}

func TestPointRemain(t *testing.T) {
	d := Distribution{T: []float64{10, 20, 30}} // median 20
	rs := []float64{1.28, 1.3, 1.3, 1.32, 1.29, 1.31, 1.3, 1.3, 1.33, 1.27}
	for _, tc := range []struct {
		name      string
		residuals []float64
		median    bool
		want      float64
	}{
		{"uncalibrated: the distribution's median", nil, false, 20},
		{"calibrated: the model's p50 times the shrunk correction", rs, false, 15 * ShrunkRatio(rs)},
		{"MedianPoint: the distribution's median", rs, true, 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := pointRemain(d, 15, tc.residuals, tc.median); math.Abs(got-tc.want) > 1e-9 {
				t.Errorf("pointRemain = %v, want %v", got, tc.want)
			}
		})
	}
}
