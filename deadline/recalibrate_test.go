package deadline

import (
	"math"
	"testing"
)

func TestRecalibrated(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    float64
		pits []float64
		want float64
	}{
		{"no history: identity", 0.3, nil, 0.3},
		// PITs 0.2 0.4 0.6 0.8 are uniform: G is the identity at them.
		{"uniform PITs keep p", 0.4, []float64{0.2, 0.4, 0.6, 0.8}, 0.4},
		{"uniform PITs, between", 0.5, []float64{0.2, 0.4, 0.6, 0.8}, 0.5},
		// Jobs end early (PITs low): a 0.2 forecast is met 3 times in 4.
		{"early finishers raise a low P", 0.2, []float64{0.05, 0.1, 0.2, 0.9}, 0.6},
		{"between PITs, linear", 0.15, []float64{0.05, 0.1, 0.2, 0.9}, 0.5},
		{"below the smallest, toward 0", 0.025, []float64{0.05, 0.1, 0.2, 0.9}, 0.1},
		{"above the largest, toward 1", 0.95, []float64{0.05, 0.1, 0.2, 0.9}, 0.9},
		{"ends stay 0 and 1", 1, []float64{0.05, 0.1, 0.2, 0.9}, 1},
		{"clamped below", -0.5, []float64{0.5}, 0},
	} {
		got := Recalibrated(tc.p, tc.pits)
		if math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s: Recalibrated(%v) = %v, want %v", tc.name, tc.p, got, tc.want)
		}
		if tc.p >= 0 && tc.p <= 1 {
			if back := recalibratedInverse(got, tc.pits); math.Abs(back-tc.p) > 1e-9 {
				t.Errorf("%s: inverse(%v) = %v, want %v", tc.name, got, back, tc.p)
			}
		}
	}
}

func TestRecalibrationOf(t *testing.T) {
	r := &Recalibration{Max: 3, MinN: 2}
	r.Add("a", 20, 0.9)
	if got := r.Of("a", 20); got != nil {
		t.Fatalf("one PIT under MinN 2: got %v, want nil", got)
	}
	for _, u := range []float64{0.1, 0.5, 0.3, math.NaN(), 1.5, -0.1} {
		r.Add("a", 20, u)
	}
	r.Add("a", 0, 0.5) // no stage: dropped
	got := r.Of("a", 20)
	want := []float64{0.1, 0.3, 0.5} // the oldest (0.9) went; sorted
	if len(got) != len(want) {
		t.Fatalf("Of = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Of = %v, want %v", got, want)
		}
	}
	if r.Of("a", 0) != nil || r.Of("b", 20) != nil {
		t.Error("stage 0 or another key should have no PITs")
	}
	var none *Recalibration
	if none.Of("a", 20) != nil {
		t.Error("nil set should have no PITs")
	}
}

func TestRecalKeyOf(t *testing.T) {
	for _, tc := range []struct {
		key  string
		n    int
		want string
	}{
		{"crypto", 0, RawRecalKey},
		{"train", 0, RawRecalKey},
		{"crypto", 12, "crypto"},
		{"crypto" + TypedReducesSuffix, 30, "crypto" + TypedReducesSuffix},
	} {
		if got := RecalKeyOf(tc.key, tc.n); got != tc.want {
			t.Errorf("RecalKeyOf(%q, %d) = %q, want %q", tc.key, tc.n, got, tc.want)
		}
	}
}

// A recalibrated distribution is G∘F, its quantiles follow, and Base
// drops the map (the PIT of a finished job is taken under F).
func TestDistributionRecal(t *testing.T) {
	d := Distribution{T: []float64{10, 20, 30, 40}, Conformal: true} // F(20) = 0.4
	pits := []float64{0.05, 0.1, 0.2, 0.9}
	r := d
	r.Recal = pits
	for _, tc := range []struct {
		t    float64
		want float64
	}{
		{20, Recalibrated(0.4, pits)},
		{5, Recalibrated(0.1, pits)},
		{100, Recalibrated(0.8, pits)},
	} {
		if got := r.P(tc.t); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("P(%v) = %v, want %v", tc.t, got, tc.want)
		}
	}
	if got, want := r.Base().P(20), 0.4; math.Abs(got-want) > 1e-9 {
		t.Errorf("Base().P(20) = %v, want %v", got, want)
	}
	if q := r.Quantile(r.P(25)); math.Abs(q-25) > 1e-9 {
		t.Errorf("Quantile(P(25)) = %v, want 25", q)
	}
	if got, want := r.Reach(), Recalibrated(0.8, pits); math.Abs(got-want) > 1e-9 {
		t.Errorf("Reach = %v, want %v", got, want)
	}
}
