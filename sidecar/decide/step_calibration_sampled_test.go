package decide

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/deadline"
	"github.com/yarn-sidecar/yarn-sidecar/progress"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

func runningApp(id, queue, class string, started time.Time, job *cluster.Job) cluster.App {
	return cluster.App{ID: id, Queue: queue, Name: class, State: cluster.AppRunning, StartedTime: started, Job: job}
}

// TestCalibrationSampledStep: root.a was sent to gpu to calibrate; the
// step marks it Sampled once each class it runs finished 3 maps there, in
// apps that ran only there, no faster than its past maps (features: 60 s
// at home; train: 120 s), or while its sampled apps still run.
func TestCalibrationSampledStep(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 2, 30, 0, 0, time.UTC)
	job := func(maps ...float64) *cluster.Job { return &cluster.Job{MapsCompleted: len(maps), CompletedMaps: maps} }
	models := map[string]deadline.PhaseModel{"features": {Map: deadline.LogNormal{Mu: math.Log(60)}}, "train": {Map: deadline.LogNormal{Mu: math.Log(120)}}}
	fresh := CalibrationSample{Partition: "gpu", Earlier: map[string]bool{}}
	for _, tc := range []struct {
		name     string
		live     string // root.a's live home
		sample   CalibrationSample
		apps     []cluster.App
		want     bool     // root.a Sampled
		wantApps []string // recorded as complete this decision
	}{
		{"3 maps as slow as at home: sampled", "gpu", fresh,
			[]cluster.App{runningApp("app1", "root.a", "features", t0, job(62, 58, 65))}, true, []string{"app1"}},
		{"2 maps: not yet", "gpu", fresh,
			[]cluster.App{runningApp("app1", "root.a", "features", t0, job(62, 58))}, false, nil},
		{"3 maps 4x as fast as at home: kept there until the rates are learned", "gpu", fresh,
			[]cluster.App{runningApp("app1", "root.a", "train", t0, job(30, 31, 29))}, false, nil},
		{"3 maps 1.04x as fast (within the 5% of no gain): sampled", "gpu", fresh,
			[]cluster.App{runningApp("app1", "root.a", "features", t0, job(57.7, 57.7, 57.7))}, true, []string{"app1"}},
		{"app that ran before the move: no sample", "gpu", CalibrationSample{Partition: "gpu", Earlier: map[string]bool{"app1": true}},
			[]cluster.App{runningApp("app1", "root.a", "features", t0, job(60, 60, 60, 60))}, false, nil},
		{"app whose job was not read: no sample", "gpu", fresh,
			[]cluster.App{runningApp("app1", "root.a", "features", t0, nil)}, false, nil},
		{"class without a model: no sample", "gpu", fresh,
			[]cluster.App{runningApp("app1", "root.a", "scan", t0, job(60, 60, 60))}, false, nil},
		{"two classes, one short of samples: not yet", "gpu", fresh,
			[]cluster.App{runningApp("app1", "root.a", "features", t0, job(60, 60, 60)), runningApp("app2", "root.a", "train", t0, job(120))}, false, nil},
		{"two classes, one gains: kept there", "gpu", fresh,
			[]cluster.App{runningApp("app1", "root.a", "features", t0, job(60, 60, 60)), runningApp("app2", "root.a", "train", t0, job(30, 30, 30))}, false, nil},
		{"two classes, neither gains: sampled", "gpu", fresh,
			[]cluster.App{runningApp("app1", "root.a", "features", t0, job(60, 60, 60)), runningApp("app2", "root.a", "train", t0, job(125, 118, 130))}, true, []string{"app1", "app2"}},
		{"no longer lives there: left to the plan", "", fresh,
			[]cluster.App{runningApp("app1", "root.a", "features", t0, job(60, 60, 60))}, false, nil},
		{"sample taken, its app still runs: stays Sampled", "", CalibrationSample{Partition: "gpu", Apps: []string{"app1"}},
			[]cluster.App{runningApp("app1", "root.a", "features", t0, job(60, 60, 60))}, true, nil},
		{"idle queue: nothing to measure", "gpu", fresh, nil, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &decideState{Tree: calibrationTree(t, tc.live), Snap: cluster.Snapshot{Apps: tc.apps}, ClassOf: func(a cluster.App) string { return a.Name },
				Queues: []progress.QueueDemand{{Path: "root.a", Demand: 100}, {Path: "root.b", Demand: 10}}}
			st := calibrationSampledStep{Samples: calibrationSamples{"root.a": tc.sample}, Models: func() map[string]deadline.PhaseModel { return models }}
			if err := st.Run(s); err != nil {
				t.Fatal(err)
			}
			if s.Queues[0].Sampled != tc.want {
				t.Fatalf("root.a Sampled %v, want %v", s.Queues[0].Sampled, tc.want)
			}
			if s.Queues[1].Sampled {
				t.Fatal("root.b was not sent: never Sampled")
			}
			if got := s.Sampled["root.a"]; !slices.Equal(got, tc.wantApps) {
				t.Fatalf("complete with apps %v, want %v", got, tc.wantApps)
			}
			if tc.wantApps != nil && !strings.Contains(strings.Join(s.Notes, "\n"), "calibration sample") {
				t.Fatalf("no note says why: %v", s.Notes)
			}
		})
	}
}

// TestCalibrationSampleBounded: a sample underway (an app started after
// the move) in a queue whose demand passed the bound is marked sampled
// before its maps say anything, so the queue's later jobs go home.
func TestCalibrationSampleBounded(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 2, 30, 0, 0, time.UTC)
	fresh := CalibrationSample{Partition: "gpu", Earlier: map[string]bool{}}
	app := runningApp("app1", "root.a", "train", t0, &cluster.Job{})
	for _, tc := range []struct {
		name   string
		sample CalibrationSample
		demand int64
		want   bool
	}{
		{"underway, demand past the bound: sampled", fresh, 40, true},
		{"underway, demand within the bound: the sample goes on", fresh, 16, false},
		{"only an app from before the move: not underway", CalibrationSample{Partition: "gpu", Earlier: map[string]bool{"app1": true}}, 40, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &decideState{Tree: calibrationTree(t, "gpu"), Snap: cluster.Snapshot{Apps: []cluster.App{app}}, ClassOf: func(a cluster.App) string { return a.Name },
				Queues: []progress.QueueDemand{{Path: "root.a", Demand: tc.demand}, {Path: "root.b", Demand: 10}}}
			st := calibrationSampledStep{Samples: calibrationSamples{"root.a": tc.sample}, CalibrationMax: 16}
			if err := st.Run(s); err != nil {
				t.Fatal(err)
			}
			if s.Queues[0].Sampled != tc.want {
				t.Fatalf("root.a Sampled %v, want %v", s.Queues[0].Sampled, tc.want)
			}
			if tc.want && (!slices.Equal(s.Sampled["root.a"], []string{"app1"}) || !strings.Contains(strings.Join(s.Notes, "\n"), "past the bound")) {
				t.Fatalf("sample apps %v, notes %v", s.Sampled["root.a"], s.Notes)
			}
		})
	}
}

// TestCalibrationSamplesFollow: a sent queue is followed once it lives in
// the partition; apps started after it moved count every map; a complete
// sample is kept while its apps run.
func TestCalibrationSamplesFollow(t *testing.T) {
	moved := time.Date(2026, 1, 1, 2, 30, 0, 0, time.UTC)
	old := runningApp("old", "root.a", "features", moved.Add(-time.Minute), &cluster.Job{MapsCompleted: 10})
	fresh := runningApp("fresh", "root.a", "features", moved.Add(time.Minute), &cluster.Job{MapsCompleted: 0})
	sent := calibrations{"root.a": {Partition: "gpu", Classes: []string{"features"}}}
	homes := homesSince{"root.a": {Label: "gpu", Since: moved}}

	c := calibrationSamples{}
	c.follow(sent, calibrationTree(t, ""), cluster.Snapshot{Apps: []cluster.App{old}}, homes)
	if len(c) != 0 {
		t.Fatalf("not yet in the partition, followed: %+v", c)
	}
	c.follow(sent, calibrationTree(t, "gpu"), cluster.Snapshot{Apps: []cluster.App{old, fresh}}, homes)
	if got := c["root.a"]; got.Partition != "gpu" || len(got.Earlier) != 1 || !got.Earlier["old"] {
		t.Fatalf("followed %+v, want only old Earlier", got)
	}
	// A second decision keeps what the first saw.
	later := runningApp("later", "root.a", "features", moved.Add(2*time.Minute), nil)
	c.follow(sent, calibrationTree(t, "gpu"), cluster.Snapshot{Apps: []cluster.App{old, fresh, later}}, homes)
	if got := c["root.a"]; len(got.Earlier) != 1 || !got.Earlier["old"] {
		t.Fatalf("re-followed: %+v", got)
	}
	// Complete; the queue goes home (no longer sent): kept while fresh runs.
	c.sampled(map[string][]string{"root.a": {"fresh"}})
	c.follow(calibrations{}, calibrationTree(t, ""), cluster.Snapshot{Apps: []cluster.App{fresh}}, homes)
	if !slices.Equal(c["root.a"].Apps, []string{"fresh"}) {
		t.Fatalf("complete sample dropped while its app runs: %+v", c)
	}
	c.follow(calibrations{}, calibrationTree(t, ""), cluster.Snapshot{}, homes)
	if len(c) != 0 {
		t.Fatalf("sample kept after its apps finished: %+v", c)
	}
	// Incomplete and no longer sent: dropped.
	c = calibrationSamples{"root.a": {Partition: "gpu", Earlier: map[string]bool{}}}
	c.follow(calibrations{}, calibrationTree(t, ""), cluster.Snapshot{}, homes)
	if len(c) != 0 {
		t.Fatalf("incomplete sample of a queue no longer sent kept: %+v", c)
	}
}

// TestHomesSince: a home seen at start-up dates from before the sidecar;
// a change is dated when first seen.
func TestHomesSince(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	h := homesSince{}
	h.observe(calibrationTree(t, "gpu"), t0, true)
	if v := h["root.a"]; v.Label != "gpu" || !v.Since.IsZero() {
		t.Fatalf("start-up home %+v, want gpu since zero", v)
	}
	h.observe(calibrationTree(t, "gpu"), t0.Add(time.Minute), false)
	if !h["root.a"].Since.IsZero() {
		t.Fatalf("unchanged home re-dated: %+v", h["root.a"])
	}
	h.observe(calibrationTree(t, ""), t0.Add(2*time.Minute), false)
	if v := h["root.a"]; v.Label != "" || !v.Since.Equal(t0.Add(2*time.Minute)) {
		t.Fatalf("moved home %+v, want \"\" since t0+2m", v)
	}
	h["root.gone"] = homeSeen{Label: "gpu"}
	h.observe(calibrationTree(t, ""), t0.Add(3*time.Minute), false)
	if _, ok := h["root.gone"]; ok {
		t.Fatal("a removed queue's home is kept")
	}
}
