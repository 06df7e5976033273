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
