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

// P(meet) from residuals: the conformal predictive distribution puts the
// k-th smallest of the n = 10 past runs (scaled to this prediction) at
// k/11, linearly in between, and keeps 1/11 beyond the largest; the step
// CDF (StepCDF) is the plain share k/10.
func TestCalibratedPMeetIsTheEmpiricalShare(t *testing.T) {
	rs := []float64{0.8, 1.2, 0.9, 1.1, 1.0, 1.3, 0.7, 1.05, 0.95, 1.5}
	// Sorted: 0.7 0.8 0.9 0.95 1.0 1.05 1.1 1.2 1.3 1.5.
	tests := []struct {
		name                    string
		predicted, left         float64
		wantConformal, wantStep float64
	}{
		{"deadline at the prediction: 1.0 is the 5th", 100, 100, 5.0 / 11, 0.5},
		{"deadline 20% later: 1.2 is the 8th", 100, 120, 8.0 / 11, 0.8},
		{"between the 7th (110) and 8th (120)", 100, 115, 7.5 / 11, 0.7},
		{"before every run: from 0 to 1/11 at the smallest (70)", 100, 60, (60.0 / 70) / 11, 0},
		{"after every run: 1/11 stays beyond", 100, 150, 10.0 / 11, 1},
		{"scale-free: 442 is 1/20 of the way from 440 to 480", 400, 442, 7.05 / 11, 0.7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Calibrated(tt.predicted, rs)
			if got := d.P(tt.left); math.Abs(got-tt.wantConformal) > 1e-12 {
				t.Errorf("conformal P(%v) = %v, want %v", tt.left, got, tt.wantConformal)
			}
			d.Conformal = false
			if got := d.P(tt.left); math.Abs(got-tt.wantStep) > 1e-12 {
				t.Errorf("step P(%v) = %v, want %v", tt.left, got, tt.wantStep)
			}
		})
	}
	// Quantiles invert P: the median sits at 5.5/11, halfway from the 5th
	// (100) to the 6th (105); 0.95 of 11 is past the 10th: the largest.
	d := Calibrated(100, rs)
	for _, q := range []struct{ q, want float64 }{{0.5, 102.5}, {5.0 / 11, 100}, {1.0 / 22, 35}, {0.95, 150}, {1, 150}} {
		if got := d.Quantile(q.q); math.Abs(got-q.want) > 1e-9 {
			t.Errorf("Quantile(%v) = %v, want %v", q.q, got, q.want)
		}
		if q.want < 150 && math.Abs(d.P(d.Quantile(q.q))-q.q) > 1e-12 {
			t.Errorf("P(Quantile(%v)) = %v", q.q, d.P(d.Quantile(q.q)))
		}
	}
	if r := d.Reach(); math.Abs(r-10.0/11) > 1e-12 {
		t.Errorf("Reach %v, want 10/11", r)
	}
	if r := (Distribution{T: []float64{1, 2}}).Reach(); r != 1 {
		t.Errorf("Monte-Carlo Reach %v, want 1", r)
	}
}

// etlOutlook is one etl job 20% through its maps (2 of 10 done, 8 maps of
// exactly 10 s left on 2 containers: the model says 40 s), its goal
// 10m50s after its start, 10 minutes ago.
func etlOutlook() (time.Time, map[string]PhaseModel, cluster.Snapshot, func(cluster.App) string) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	models := map[string]PhaseModel{"etl": {Map: LogNormal{Mu: math.Log(10)}}}
	app := cluster.App{ID: "a1", Name: "a1", Queue: "root.q", State: cluster.AppRunning, Progress: 20, Type: "MAPREDUCE",
		StartedTime: now.Add(-10 * time.Minute), Tags: []string{"deadline=+10m50s", "jobclass=etl"}, RunningContainers: 3,
		Job: &cluster.Job{MapsTotal: 10, MapsCompleted: 2}}
	snap := cluster.Snapshot{Time: now, Apps: []cluster.App{app}}
	classOf := func(a cluster.App) string { v, _ := a.Tag("jobclass"); return v }
	return now, models, snap, classOf
}

// In the report: with enough residuals of the class at the job's stage the
// p50 is corrected and P(meet) is the empirical share; without, the
// Monte-Carlo's own distribution stays (Residuals 0).
func TestReportUsesResidualsOnlyWithEnough(t *testing.T) {
	now, models, snap, classOf := etlOutlook()
	slow := []float64{1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7, 1.8, 1.9, 2.0} // runs ended 10–100% later than predicted
	tests := []struct {
		name      string
		res       []Residual
		wantP50   float64 // seconds from now
		wantPMeet float64 // deadline 50 s away
		wantN     int
		step      bool
		median    bool // MedianPoint
	}{
		{"no residuals: the model", nil, 40, 1, 0, false, false},
		{"too few: the model", residualsAt("etl", 20, slow[:9]), 40, 1, 0, false, false},
		{"another stage's: the model", residualsAt("etl", 10, slow), 40, 1, 0, false, false},
		// 40·r: 44, 48, 52, ... 80; 50 is halfway from the 2nd to the 3rd
		// (2.5/11); the median halfway from the 5th (60) to the 6th (64).
		{"enough at the stage, median point: corrected", residualsAt("etl", 20, slow), 62, 2.5 / 11, 10, false, true},
		{"step CDF: the share with 40·r ≤ 50", residualsAt("etl", 20, slow), 40 * 1.5, 0.2, 10, true, true},
		// The point: 40 times the shrunk correction, the same P(meet).
		{"enough at the stage: shrunk point", residualsAt("etl", 20, slow), 40 * ShrunkRatio(slow), 2.5 / 11, 10, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewResiduals()
			for _, x := range tt.res {
				r.Add(x)
			}
			qs := Report(snap, models, ReportOptions{ClassOf: classOf, Samples: 20, Residuals: r, StepCDF: tt.step, MedianPoint: tt.median})
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

// A goal at 95% judged on ten residuals (Reach 10/11) is not "cannot
// meet" for want of runs: the verdict and the containers needed use the
// reach instead.
func TestReportConfidenceAboveReach(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	models := map[string]PhaseModel{"etl": {Map: LogNormal{Mu: math.Log(10)}}}
	a := cluster.App{ID: "a1", Queue: "root.q", State: cluster.AppRunning, Progress: 20, StartedTime: now.Add(-10 * time.Minute),
		Tags: []string{"jobclass=etl", "deadline=+20m"}, RunningContainers: 3, Job: &cluster.Job{MapsTotal: 10, MapsCompleted: 2}}
	r := NewResiduals()
	for _, x := range residualsAt("etl", 20, []float64{0.9, 0.95, 1, 1, 1, 1.05, 1.1, 1.1, 1.2, 1.3}) {
		r.Add(x)
	}
	o := ReportOptions{ClassOf: func(a cluster.App) string { v, _ := a.Tag("jobclass"); return v }, Samples: 20, Residuals: r, Confidence: 0.95,
		QueueMax: func(string) int { return 10 }}
	j := Report(cluster.Snapshot{Time: now, Apps: []cluster.App{a}}, models, o)[0].Jobs[0]
	if j.PMeet == nil || math.Abs(*j.PMeet-10.0/11) > 1e-12 {
		t.Fatalf("P(meet) %v, want the reach 10/11", j.PMeet)
	}
	if j.Verdict != OnTrack || j.Needed < 1 || j.Needed > 2 {
		t.Errorf("verdict %q needing %d, want on track with at most the 2 held", j.Verdict, j.Needed)
	}
}
