package deadline

import (
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

func TestReduceKinds(t *testing.T) {
	gpu, cpu := LogNormal{Mu: math.Log(15), Sigma: 0.1}, LogNormal{Mu: math.Log(60), Sigma: 0.1}
	m := PhaseModel{ReduceOn: map[string]LogNormal{"gpu": gpu, "cpu": cpu}}
	typeOf := func(addr string) string {
		return map[string]string{"g1:8042": "gpu", "c1:8042": "cpu", "n1:8042": "new"}[addr]
	}
	tests := []struct {
		name   string
		m      PhaseModel
		nodes  []string
		typeOf func(string) string
		want   []LogNormal
	}{
		{"each reduce its node type's fit", m, []string{"g1:8042", "c1:8042"}, typeOf, []LogNormal{gpu, cpu}},
		{"a type without a fit keeps the mixture (zero)", m, []string{"n1:8042", "g1:8042"}, typeOf, []LogNormal{{}, gpu}},
		{"an unknown node keeps the mixture", m, []string{"", "g1:8042"}, typeOf, []LogNormal{{}, gpu}},
		{"nothing known: nil", m, []string{"n1:8042", "x:1"}, typeOf, nil},
		{"no type lookup: nil", m, []string{"g1:8042"}, nil, nil},
		{"no per-type fits: nil", PhaseModel{}, []string{"g1:8042"}, typeOf, nil},
		{"no running reduces: nil", m, nil, typeOf, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ReduceKinds(tt.m, tt.nodes, tt.typeOf); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ReduceKinds = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestReduceRemains(t *testing.T) {
	tests := []struct {
		name              string
		mapsLeft          bool
		progress, elapsed []float64
		age               float64
		want              []float64
	}{
		// 40 s for a quarter: 120 s left; 30 s for half: 30 s left.
		{"maps done: each by its own rate", false, []float64{0.25, 0.5}, []float64{40, 30}, 0, []float64{120, 30}},
		{"a view read 10 s ago", false, []float64{0.5}, []float64{30}, 10, []float64{20}},
		{"below MinTaskProgress: unknown", false, []float64{0.05, 0.5}, []float64{10, 30}, 0, []float64{-1, 30}},
		{"no elapsed time read: unknown", false, []float64{0.5}, nil, 0, []float64{-1}},
		{"maps still running: copy paced by the maps, nil", true, []float64{0.5}, []float64{30}, 0, nil},
		{"no running reduces: nil", false, nil, nil, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ReduceRemains(tt.mapsLeft, tt.progress, tt.elapsed, tt.age); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ReduceRemains = %v, want %v", got, tt.want)
			}
		})
	}
}

// Hand-worked with (nearly) fixed durations, maps done: the class's
// reduce mixture is 40 s (shuffle 0), a GPU node's fit 10 s.
func TestReduceLefts(t *testing.T) {
	tests := []struct {
		name     string
		mapsLeft bool
		progress []float64
		want     []float64
	}{
		{"maps done: 1 − progress", false, []float64{0.25, 1, 0}, []float64{0.75, 0, 1}},
		{"progress past 1 read: nothing left", false, []float64{1.2}, []float64{0}},
		{"maps still running: nil", true, []float64{0.5}, nil},
		{"no running reduces: nil", false, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ReduceLefts(tt.mapsLeft, tt.progress); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ReduceLefts = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSimulateReduceOnAndRemain(t *testing.T) {
	ln := func(mean float64) LogNormal { return LogNormal{Mu: math.Log(mean), Sigma: 1e-6} }
	m := PhaseModel{Map: ln(60), Reduce: ln(40), HasReduce: true}
	tests := []struct {
		name string
		w    Work
		want float64
	}{
		{"one running reduce, node unknown: the mixture", Work{Reduces: 1, ReduceHeld: 1}, 40},
		{"one running reduce on a GPU node: its fit", Work{Reduces: 1, ReduceHeld: 1, ReduceOn: []LogNormal{ln(10)}}, 10},
		{"zero entry: the mixture", Work{Reduces: 2, ReduceHeld: 2, ReduceOn: []LogNormal{ln(10), {}}}, 40},
		{"a running reduce with 5 s left by its rate", Work{Reduces: 1, ReduceHeld: 1, ReduceRemain: []float64{5}}, 5},
		// The running one ends at 5 s; the other, not started, takes a
		// worker at 0 and 40 s.
		{"one left 5 s, one to start", Work{Reduces: 2, ReduceHeld: 1, ReduceRemain: []float64{5}}, 40},
		{"unknown rest (−1): drawn as a whole", Work{Reduces: 1, ReduceHeld: 1, ReduceRemain: []float64{-1}}, 40},
		// Two reduces held, only one worker more: the second of three
		// waits for the 5-s one's container or the free worker (0 s).
		{"three reduces, two held, rests 5 and 8", Work{Reduces: 3, ReduceHeld: 2, ReduceRemain: []float64{5, 8}}, 40},
		{"a running reduce with a quarter left: a quarter of 40 s", Work{Reduces: 1, ReduceHeld: 1, ReduceLeft: []float64{0.25}}, 10},
		{"a quarter left on a GPU node: a quarter of its 10 s", Work{Reduces: 1, ReduceHeld: 1, ReduceLeft: []float64{0.25}, ReduceOn: []LogNormal{ln(10)}}, 2.5},
		{"rest by rate known: it wins over the share", Work{Reduces: 1, ReduceHeld: 1, ReduceRemain: []float64{5}, ReduceLeft: []float64{0.5}}, 5},
		{"share unknown (−1): drawn as a whole", Work{Reduces: 1, ReduceHeld: 1, ReduceLeft: []float64{-1}}, 40},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Simulate(m, tt.w, 1, nil, 50, 1).Quantile(0.5)
			if math.Abs(got-tt.want) > 0.01 {
				t.Errorf("median %.3f s, want %.0f", got, tt.want)
			}
		})
	}
}

func TestModelReduceOn(t *testing.T) {
	five := func(v float64) []float64 { return []float64{v, v, v, v, v} }
	s := Samples{Map: []float64{10, 12}, Reduce: []float64{20, 40, 60}, ReduceOn: map[string][]float64{
		"gpu": five(20), "cpu": {40, 60, 40, 60, 40}, "few": {30, 30, 30, 30}}}
	m, ok := s.Model()
	if !ok {
		t.Fatal("no model")
	}
	// Fit (eq. 5.1) of five 20 s reduces: μ = ln 20, σ = 0.
	if g := m.ReduceOn["gpu"]; math.Abs(g.Mu-math.Log(20)) > 1e-9 || g.Sigma != 0 {
		t.Errorf("gpu fit %+v, want μ ln 20, σ 0", g)
	}
	if c, ok := m.ReduceOn["cpu"]; !ok || math.Abs(c.Mean()-48) > 1e-9 {
		t.Errorf("cpu fit %+v (mean %.2f), want mean 48", c, c.Mean())
	}
	if _, ok := m.ReduceOn["few"]; ok {
		t.Errorf("a type with %d < %d reduces got a fit", 4, MinReduceOnType)
	}
	noReduce, _ := Samples{Map: []float64{10, 12}, ReduceOn: map[string][]float64{"gpu": five(20)}}.Model()
	if noReduce.ReduceOn != nil {
		t.Errorf("a class without reduces got per-type fits %v", noReduce.ReduceOn)
	}
}

func TestResidualKeyOf(t *testing.T) {
	tests := []struct {
		class string
		typed bool
		want  string
	}{
		{"train", false, "train"},
		{"train", true, "train@typed-reduces"},
		{"", true, "@typed-reduces"},
	}
	for _, tt := range tests {
		if got := ResidualKeyOf(tt.class, tt.typed); got != tt.want {
			t.Errorf("ResidualKeyOf(%q, %v) = %q, want %q", tt.class, tt.typed, got, tt.want)
		}
	}
}

// With SplitTypedReduces, an outlook whose running reduce was costed at
// its node type is calibrated by the typed category's residuals only (a
// ratio of 2 doubles the model's ~5 s), one whose node is unknown by the
// class's (a ratio of 1); without it both by the class's.
func TestReportSplitTypedReduces(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	ln := func(mean float64) LogNormal { return LogNormal{Mu: math.Log(mean), Sigma: 1e-6} }
	models := map[string]PhaseModel{"train": {Map: ln(60), Reduce: ln(40), HasReduce: true, ReduceOn: map[string]LogNormal{"gpu": ln(10)}}}
	res := NewResiduals()
	for i := 0; i < 10; i++ {
		res.Add(Residual{Class: "train", Stage: 50, Ratio: 1})
		res.Add(Residual{Class: "train" + TypedReducesSuffix, Stage: 50, Ratio: 2})
	}
	app := func(node string) cluster.App {
		return cluster.App{ID: "a1", Queue: "root.q", State: cluster.AppRunning, Progress: 90, StartedTime: now.Add(-time.Hour),
			Tags: []string{"jobclass=train"}, RunningContainers: 2,
			Job: &cluster.Job{MapsTotal: 4, MapsCompleted: 4, ReducesTotal: 1, ReducesRunning: 1, RunningReduces: []float64{0.5},
				RunningReducesElapsed: []float64{10}, RunningReduceNodes: []string{node}}}
	}
	typeOf := func(addr string) string { return map[string]string{"g1:8042": "gpu"}[addr] }
	tests := []struct {
		name    string
		node    string
		split   bool
		wantKey string
		want    float64 // p50 seconds from now
	}{
		// The running reduce is half done (maps done): half of its
		// type's 10 s or the class's 40 s (ReduceLefts), times the ratio.
		{"typed, split: typed residuals", "g1:8042", true, "train@typed-reduces", 10},
		{"typed, not split: the class's", "g1:8042", false, "train", 5},
		{"node unknown, split: the class's", "x:8042", true, "train", 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := ReportOptions{ClassOf: func(a cluster.App) string { v, _ := a.Tag("jobclass"); return v }, Samples: 50, Seed: 1,
				Residuals: res, NodeTypeOf: typeOf, SplitTypedReduces: tt.split}
			j := Report(cluster.Snapshot{Time: now, Apps: []cluster.App{app(tt.node)}}, models, o)[0].Jobs[0]
			if j.ResidualKey != tt.wantKey {
				t.Errorf("residual key %q, want %q", j.ResidualKey, tt.wantKey)
			}
			if got := j.P50.Sub(now).Seconds(); math.Abs(got-tt.want) > 0.5 {
				t.Errorf("p50 in %.2f s, want %.0f", got, tt.want)
			}
		})
	}
}

// A job whose maps are done and whose one reduce is three quarters
// through: the report costs the quarter left by default (ReduceLefts), the
// whole reduce with WholeRunningReduces; while maps run, the whole reduce
// after them either way.
func TestReportRunningReduceShare(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	ln := func(mean float64) LogNormal { return LogNormal{Mu: math.Log(mean), Sigma: 1e-6} }
	models := map[string]PhaseModel{"etl": {Map: ln(60), Reduce: ln(40), HasReduce: true}}
	app := func(mapsDone int) cluster.App {
		return cluster.App{ID: "a1", Queue: "root.q", State: cluster.AppRunning, Progress: 90, StartedTime: now.Add(-time.Hour),
			Tags: []string{"jobclass=etl"}, RunningContainers: 2,
			Job: &cluster.Job{MapsTotal: 4, MapsCompleted: mapsDone, ReducesTotal: 1, ReducesRunning: 1, RunningReduces: []float64{0.75}}}
	}
	tests := []struct {
		name     string
		mapsDone int
		whole    bool
		want     float64 // p50 seconds from now
	}{
		{"maps done: the quarter left", 4, false, 10},
		{"maps done, whole: the whole reduce", 4, true, 40},
		// Three maps waiting for the one worker: 180 s, then the reduce.
		{"maps left: the whole reduce after them", 1, false, 220},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := ReportOptions{ClassOf: func(a cluster.App) string { v, _ := a.Tag("jobclass"); return v }, Samples: 50, Seed: 1,
				WholeRunningReduces: tt.whole}
			j := Report(cluster.Snapshot{Time: now, Apps: []cluster.App{app(tt.mapsDone)}}, models, o)[0].Jobs[0]
			if got := j.P50.Sub(now).Seconds(); math.Abs(got-tt.want) > 0.5 {
				t.Errorf("p50 in %.2f s, want %.0f", got, tt.want)
			}
		})
	}
}
