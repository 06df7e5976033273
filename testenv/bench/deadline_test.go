package main

import (
	"math"
	"math/rand"
	"sort"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/deadline"
)

// The (c) calibration design: a forecast that is calibrated by
// construction (each job's end is drawn from the very distribution it
// predicts, log-normal with spread 0.15 around 100 s) scores near 0 with
// deadlines around its prediction, and several points off with deadlines
// around the actual end, the design the rows used before.
func TestCalibrationDesign(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	const sigma = 0.15
	forecast := make([]float64, 4000)
	for i := range forecast {
		forecast[i] = 100 * math.Exp(sigma*rng.NormFloat64())
	}
	sort.Float64s(forecast)
	dist := deadline.Distribution{T: forecast}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var points []predictionPoint
	for i := 0; i < 3000; i++ {
		end := 100 * math.Exp(sigma*rng.NormFloat64())
		points = append(points, predictionPoint{predictedAt: t0, p50: t0.Add(100 * time.Second),
			actual: t0.Add(time.Duration(end * float64(time.Second))), dist: dist})
	}
	pOf := func(p predictionPoint, d float64) float64 { return p.dist.P(d) }
	fair, used, _ := calibration(points, pOf, byPrediction)
	biased, _, _ := calibration(points, pOf, byOutcome)
	t.Logf("worst decile: %.1f pts around the prediction, %.1f around the actual end", 100*fair, 100*biased)
	if used < 8 || fair > 0.025 {
		t.Errorf("deadlines around the prediction: worst decile %.1f pts over %d deciles, want ≤2.5 over ≥8", 100*fair, used)
	}
	if biased < 0.05 {
		t.Errorf("deadlines around the actual end: worst decile %.1f pts, want the design's bias (≥5)", 100*biased)
	}
}

func TestWorstClassMedianAndBootstrapSD(t *testing.T) {
	pt := func(job, class string, e float64) predictionPoint {
		return predictionPoint{job: job, class: class, errRel: e}
	}
	tests := []struct {
		name       string
		points     []predictionPoint
		worst      float64
		zeroSpread bool // every resample the same
	}{
		{"one class: its median", []predictionPoint{pt("1/a", "sort", 0.02), pt("1/b", "sort", 0.04), pt("1/c", "sort", 0.06)}, 0.04, false},
		{"two classes: the larger median", []predictionPoint{pt("1/a", "sort", 0.02), pt("1/b", "crypto", 0.07)}, 0.07, false},
		{"one job: resamples are all that job", []predictionPoint{pt("1/a", "sort", 0.02), pt("1/a", "sort", 0.04)}, 0.04, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := worstClassMedian(tt.points); math.Abs(got-tt.worst) > 1e-12 {
				t.Errorf("worstClassMedian = %v, want %v", got, tt.worst)
			}
			sd := bootstrapSD(tt.points, worstClassMedian, 50)
			if tt.zeroSpread && sd > 1e-12 {
				t.Errorf("bootstrapSD = %v, want 0", sd)
			}
			if !tt.zeroSpread && !(sd > 1e-12) {
				t.Errorf("bootstrapSD = %v, want > 0", sd)
			}
		})
	}
	if sd := bootstrapSD(nil, worstClassMedian, 50); !math.IsNaN(sd) {
		t.Errorf("no points: %v, want NaN", sd)
	}
}

func TestCalibrationParts(t *testing.T) {
	pt := func(variant, stage, residuals int, class string) predictionPoint {
		return predictionPoint{variant: variant, stage: stage, residuals: residuals, class: class}
	}
	for _, c := range []struct {
		name    string
		points  []predictionPoint
		variant int
		want    map[string]int // part → predictions in it
	}{
		{"the model's own spread apart from calibrated", []predictionPoint{pt(16, 10, 0, "sort"), pt(16, 10, 12, "sort"), pt(16, 20, 30, "sort")}, 16,
			map[string]int{"model's own spread": 1, "calibrated": 2, "stage 10": 2, "stage 20": 1, "class sort": 3}},
		{"other variants left out", []predictionPoint{pt(11, 50, 12, "train"), pt(16, 50, 12, "crypto")}, 11,
			map[string]int{"calibrated": 1, "stage 50": 1, "class train": 1}},
		{"no predictions of the variant: no parts", []predictionPoint{pt(16, 10, 0, "sort")}, 17, map[string]int{}},
	} {
		got := calibrationParts(c.points, c.variant)
		if len(got) != len(c.want) {
			t.Errorf("%s: %d parts, want %d", c.name, len(got), len(c.want))
		}
		for k, n := range c.want {
			if len(got[k]) != n {
				t.Errorf("%s: part %q has %d, want %d", c.name, k, len(got[k]), n)
			}
		}
	}
}
