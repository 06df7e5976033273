package deadline

import (
	"math"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

func TestWithOwnMaps(t *testing.T) {
	class := PhaseModel{Map: LogNormal{Mu: math.Log(60), Sigma: 0.3}, JobSigma: 0.3}
	tests := []struct {
		name      string
		m         PhaseModel
		own       []float64
		wantMu    float64
		wantSigma float64 // JobSigma after
	}{
		{"no own maps: class model", class, nil, math.Log(60), 0.3},
		{"no spread between runs: class model", PhaseModel{Map: class.Map}, []float64{30, 30}, math.Log(60), 0},
		// σ²/J² = 1: one own map weighs as much as the class prior.
		{"one map halfway", class, []float64{30}, (math.Log(60) + math.Log(30)) / 2, 0.3 / math.Sqrt(2)},
		// Nine maps: weight 9/10 on their mean log.
		{"nine maps dominate", class, []float64{30, 30, 30, 30, 30, 30, 30, 30, 30}, 0.1*math.Log(60) + 0.9*math.Log(30), 0.3 / math.Sqrt(10)},
		{"zero durations are skipped", class, []float64{0, 30}, (math.Log(60) + math.Log(30)) / 2, 0.3 / math.Sqrt(2)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := WithOwnMaps(tt.m, tt.own)
			if math.Abs(got.Map.Mu-tt.wantMu) > 1e-9 || math.Abs(got.JobSigma-tt.wantSigma) > 1e-9 {
				t.Errorf("μ %.6f JobSigma %.6f, want %.6f %.6f", got.Map.Mu, got.JobSigma, tt.wantMu, tt.wantSigma)
			}
			if got.Map.Sigma != tt.m.Map.Sigma || got.Reduce != tt.m.Reduce {
				t.Errorf("task spread or other phases changed: %+v", got)
			}
		})
	}
}

func TestMapsRemaining(t *testing.T) {
	tests := []struct {
		elapsed, p, want float64
		ok               bool
	}{
		{100, 0.2, 400, true},
		{100, 0.5, 100, true},
		{100, 1, 0, true},
		{100, 0, 0, false},
		{0, 0.3, 0, false},
	}
	for _, tt := range tests {
		got, ok := MapsRemaining(tt.elapsed, tt.p)
		if ok != tt.ok || math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("MapsRemaining(%v, %v) = %v, %v; want %v, %v", tt.elapsed, tt.p, got, ok, tt.want, tt.ok)
		}
	}
}

// ReportOptions.OwnMaps: a job whose finished maps took half the class's
// time is predicted to finish sooner with them than without; off by
// default, the prediction is the class model's.
func TestReportOwnMaps(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	a := cluster.App{ID: "a1", Queue: "root.q", State: cluster.AppRunning, Progress: 20, StartedTime: now.Add(-5 * time.Minute),
		Tags: []string{"jobclass=etl"}, RunningContainers: 11,
		Job: &cluster.Job{MapsTotal: 100, MapsCompleted: 20, CompletedMaps: []float64{30, 30, 30, 30, 30, 30, 30, 30, 30, 30}}}
	models := map[string]PhaseModel{"etl": {Map: LogNormal{Mu: math.Log(60), Sigma: 0.2}, JobSigma: 0.2}}
	snap := cluster.Snapshot{Time: now, Apps: []cluster.App{a}}
	p50 := func(own bool) time.Duration {
		o := ReportOptions{ClassOf: func(a cluster.App) string { v, _ := a.Tag("jobclass"); return v }, Samples: 200, Seed: 1, OwnMaps: own}
		return Report(snap, models, o)[0].Jobs[0].P50.Sub(now)
	}
	off, on := p50(false), p50(true)
	// 80 maps on 10 containers: 8 waves of ~60 s without, ~30-35 s with.
	if off < 7*time.Minute || off > 9*time.Minute {
		t.Errorf("class model only: p50 in %v, want about 8 min", off)
	}
	if on > off*7/10 {
		t.Errorf("with own maps: p50 in %v, want well under the class model's %v", on, off)
	}
}

func TestShareWorkers(t *testing.T) {
	tests := []struct {
		name           string
		held           int
		absCap, absUse float64
		pending        bool
		want           int
	}{
		{"within its guarantee: kept", 40, 15, 10, true, 40},
		{"nobody waits: kept", 40, 15, 60, false, 40},
		{"4x over with others waiting: halfway to a quarter", 40, 15, 60, true, 25},
		{"never below one", 1, 1, 100, true, 1},
	}
	for _, tt := range tests {
		if got := ShareWorkers(tt.held, tt.absCap, tt.absUse, tt.pending); got != tt.want {
			t.Errorf("%s: %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestTaskRemaining(t *testing.T) {
	tests := []struct {
		name            string
		elapsed, p, age float64
		want            float64
		ok              bool
	}{
		{"a fifth done in 20 s: 80 s left", 20, 0.2, 0, 80, true},
		{"halfway", 30, 0.5, 0, 30, true},
		{"read 10 s ago", 30, 0.5, 10, 20, true},
		{"read longer ago than it had left", 30, 0.5, 45, 0, true},
		{"done", 30, 1, 0, 0, true},
		{"below MinTaskProgress: starting, no rate", 27.592, 0.05, 0, 0, false},
		// Hadoop 3.3.6 shows a map at 0.0 after 27.6 s (recorded AM tasks).
		{"no progress yet", 27.592, 0, 0, 0, false},
		{"no elapsed time", 0, 0.5, 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := TaskRemaining(tt.elapsed, tt.p, tt.age)
			if ok != tt.ok || math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("TaskRemaining(%v, %v, %v) = %v, %v; want %v, %v", tt.elapsed, tt.p, tt.age, got, ok, tt.want, tt.ok)
			}
		})
	}
}

// Running maps by their own rates (ReportOptions.DrawRunningMaps off): two maps at 50% of a one-wave job, one after
// 30 s (60 s maps) and one after 120 s (a slow node, 240 s): the job ends
// when the slow one does, 120 s from now, whatever the class's 60 s; the
// class model alone predicts about 30 s. A map below MinTaskProgress keeps
// its drawn time.
func TestReportTaskRates(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	job := func(progress, elapsed []float64) cluster.App {
		return cluster.App{ID: "a1", Queue: "root.q", State: cluster.AppRunning, Progress: 50, StartedTime: now.Add(-3 * time.Minute),
			Tags: []string{"jobclass=etl"}, RunningContainers: 1 + len(progress),
			Job: &cluster.Job{MapsTotal: 4, MapsCompleted: 2, RunningMaps: progress, RunningMapsElapsed: elapsed}}
	}
	models := map[string]PhaseModel{"etl": {Map: LogNormal{Mu: math.Log(60), Sigma: 0.05}}}
	p50 := func(a cluster.App, rates bool) float64 {
		o := ReportOptions{ClassOf: func(a cluster.App) string { v, _ := a.Tag("jobclass"); return v }, Samples: 200, Seed: 1, DrawRunningMaps: !rates}
		return Report(cluster.Snapshot{Time: now, Apps: []cluster.App{a}}, models, o)[0].Jobs[0].P50.Sub(now).Seconds()
	}
	slow := job([]float64{0.5, 0.5}, []float64{30, 120})
	if got := p50(slow, true); math.Abs(got-120) > 0.5 {
		t.Errorf("own rates: p50 in %.1f s, want 120 (the slow map's rest)", got)
	}
	if got := p50(slow, false); got < 25 || got > 40 {
		t.Errorf("class model: p50 in %.1f s, want about 30", got)
	}
	starting := job([]float64{0.5, 0.02}, []float64{30, 5})
	if got := p50(starting, true); got < 50 || got > 70 {
		t.Errorf("a map at 2%%: p50 in %.1f s, want its drawn ~59 s", got)
	}
	noElapsed := job([]float64{0.5, 0.5}, nil)
	if got := p50(noElapsed, true); got < 25 || got > 40 {
		t.Errorf("no elapsed times read: p50 in %.1f s, want the model's ~30", got)
	}
}
