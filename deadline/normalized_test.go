package deadline

import (
	"math"
	"testing"
)

func TestLogSpread(t *testing.T) {
	lognormal := func(sigma float64) Distribution {
		// Quartiles of a lognormal of σ at exp(±0.6745σ), a sample of 2.
		return Distribution{T: []float64{100 * math.Exp(-0.6745*sigma), 100 * math.Exp(0.6745*sigma)}}
	}
	for _, c := range []struct {
		name string
		d    Distribution
		want float64
	}{
		{"lognormal σ 0.3", lognormal(0.3), 0.3},
		{"lognormal σ 0.1", lognormal(0.1), 0.1},
		{"deterministic: the floor", Distribution{T: []float64{50, 50, 50}}, MinLogSpread},
		{"empty: the floor", Distribution{}, MinLogSpread},
	} {
		if got := LogSpread(c.d); math.Abs(got-c.want) > 1e-3 {
			t.Errorf("%s: LogSpread = %.4f, want %.4f", c.name, got, c.want)
		}
	}
}

func TestNormalizedScoreRoundTrip(t *testing.T) {
	for _, c := range []struct {
		name                   string
		ratio, spread, spread2 float64
		want                   float64 // ratio scaled to an outlook of spread2
	}{
		{"same spread gives the ratio back", 1.3, 0.2, 0.2, 1.3},
		{"half the spread halves the log ratio", 1.44, 0.2, 0.1, 1.2},
		{"twice the spread doubles it", 0.8, 0.1, 0.2, 0.64},
		{"a ratio of 1 stays 1", 1, 0.05, 0.4, 1},
		{"spreads below the floor count as the floor", 1.1, 0.001, MinLogSpread, 1.1},
	} {
		got := Scaled([]float64{NormalizedScore(c.ratio, c.spread)}, c.spread2)[0]
		if math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s: %.6f, want %.6f", c.name, got, c.want)
		}
	}
	if Scaled(nil, 0.2) != nil {
		t.Error("Scaled(nil) should stay nil (the caller falls back to the model)")
	}
}
