package deadline

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

func TestStageOf(t *testing.T) {
	tests := []struct {
		done, total, want int
	}{
		{0, 10, 0},
		{0, 0, 0},
		{1, 20, 0},
		{1, 10, 10},
		{19, 100, 10},
		{20, 100, 20},
		{49, 100, 20},
		{5, 10, 50},
		{10, 10, 50},
	}
	for _, tt := range tests {
		if got := StageOf(tt.done, tt.total); got != tt.want {
			t.Errorf("StageOf(%d, %d) = %d, want %d", tt.done, tt.total, got, tt.want)
		}
	}
}

func TestResidualsKeepTheRecentAndNeedEnough(t *testing.T) {
	r := &Residuals{Max: 3, MinN: 2}
	for _, x := range []float64{1, 2, 3, 4, math.NaN(), 0, -1, math.Inf(1)} {
		r.Add(Residual{Class: "etl", Stage: 20, Ratio: x})
	}
	r.Add(Residual{Class: "etl", Stage: 10, Ratio: 5})
	r.Add(Residual{Class: "etl", Stage: 0, Ratio: 5}) // before any stage: not kept
	tests := []struct {
		name  string
		class string
		stage int
		want  []float64
	}{
		{"oldest dropped past Max, bad ratios skipped", "etl", 20, []float64{2, 3, 4}},
		{"fewer than MinN: none (the model is used)", "etl", 10, nil},
		{"no history of the class", "sort", 20, nil},
		{"no stage 0", "etl", 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := r.Of(tt.class, tt.stage); !slices.Equal(got, tt.want) {
				t.Errorf("Of(%s, %d) = %v, want %v", tt.class, tt.stage, got, tt.want)
			}
		})
	}
	if c := r.Count(); c["etl"][20] != 3 || c["etl"][10] != 1 || len(c["etl"]) != 2 {
		t.Errorf("Count = %v", c)
	}
	var none *Residuals
	if none.Of("etl", 20) != nil {
		t.Error("a nil set has residuals")
	}
}

// P(meet) from residuals is the share of the class's past runs that,
// scaled to this prediction, would have ended by the deadline.
func TestCalibratedPMeetIsTheEmpiricalShare(t *testing.T) {
	rs := []float64{0.8, 1.2, 0.9, 1.1, 1.0, 1.3, 0.7, 1.05, 0.95, 1.5}
	tests := []struct {
		name            string
		predicted, left float64
		want            float64
	}{
		{"deadline at the prediction: runs with r ≤ 1", 100, 100, 0.5},
		{"deadline 20% later", 100, 120, 0.8},
		{"deadline before every run", 100, 60, 0},
		{"deadline after every run", 100, 150, 1},
		{"scale-free in the prediction", 400, 442, 0.7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Calibrated(tt.predicted, rs)
			if got := d.P(tt.left); math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("P(%v) = %v, want %v", tt.left, got, tt.want)
			}
		})
	}
	// The median is the prediction times the median residual.
	if got := Calibrated(100, rs).Quantile(0.5); math.Abs(got-100) > 1e-9 {
		t.Errorf("median %v, want 100 (median residual 1.0)", got)
	}
}

// In the report: with enough residuals of the class at the job's stage the
// p50 is corrected and P(meet) is the empirical share; without, the
// Monte-Carlo's own distribution stays (Residuals 0).
func TestReportUsesResidualsOnlyWithEnough(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	// 8 maps of exactly 10 s on 2 containers: the model says 40 s.
	models := map[string]PhaseModel{"etl": {Map: LogNormal{Mu: math.Log(10)}}}
	app := cluster.App{ID: "a1", Name: "a1", Queue: "root.q", State: cluster.AppRunning, Progress: 20, Type: "MAPREDUCE",
		StartedTime: now.Add(-10 * time.Minute), Tags: []string{"deadline=+10m50s", "jobclass=etl"}, RunningContainers: 3,
		Job: &cluster.Job{MapsTotal: 10, MapsCompleted: 2}}
	snap := cluster.Snapshot{Time: now, Apps: []cluster.App{app}}
	classOf := func(a cluster.App) string { v, _ := a.Tag("jobclass"); return v }
	slow := []float64{1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7, 1.8, 1.9, 2.0} // runs ended 10–100% later than predicted
	tests := []struct {
		name      string
		res       []Residual
		wantP50   float64 // seconds from now
		wantPMeet float64 // deadline 50 s away
		wantN     int
	}{
		{"no residuals: the model", nil, 40, 1, 0},
		{"too few: the model", residualsAt("etl", 20, slow[:9]), 40, 1, 0},
		{"another stage's: the model", residualsAt("etl", 10, slow), 40, 1, 0},
		{"enough at the stage: corrected", residualsAt("etl", 20, slow), 40 * 1.5, 0.2, 10}, // 40·r ≤ 50 for r ≤ 1.25
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewResiduals()
			for _, x := range tt.res {
				r.Add(x)
			}
			qs := Report(snap, models, ReportOptions{ClassOf: classOf, Samples: 20, Residuals: r})
			j := qs[0].Jobs[0]
			if j.Stage != 20 || math.Abs(j.ModelRemain-40) > 1e-9 {
				t.Errorf("stage %d model remain %v, want 20 and 40", j.Stage, j.ModelRemain)
			}
			if got := j.P50.Sub(now).Seconds(); math.Abs(got-tt.wantP50) > 1e-6 {
				t.Errorf("p50 in %v s, want %v", got, tt.wantP50)
			}
			if j.PMeet == nil || math.Abs(*j.PMeet-tt.wantPMeet) > 1e-12 || j.Residuals != tt.wantN {
				t.Errorf("P(meet) %v from %d residuals, want %v from %d", j.PMeet, j.Residuals, tt.wantPMeet, tt.wantN)
			}
		})
	}
}

func residualsAt(class string, stage int, ratios []float64) []Residual {
	out := make([]Residual, len(ratios))
	for i, r := range ratios {
		out[i] = Residual{Class: class, Stage: stage, Ratio: r}
	}
	return out
}
