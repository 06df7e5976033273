package decide

import (
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/deadline/replay"
	"github.com/yarn-sidecar/yarn-sidecar/progress"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// replayCluster: etl and ml share 8 cpu slots 50/50 and a 6-slot
// non-exclusive gpu partition; a day of history has etl jobs and ml jobs
// whose maps ran on cpu.
func replayCluster(t *testing.T, gpuRate float64, known bool) (*decideState, []calibrate.JobRecord) {
	t.Helper()
	conf := schedconf.Conf{
		"yarn.scheduler.capacity.root.queues":                                  "etl,ml",
		"yarn.scheduler.capacity.root.accessible-node-labels":                  "*",
		"yarn.scheduler.capacity.root.accessible-node-labels.gpu.capacity":     "100",
		"yarn.scheduler.capacity.root.etl.capacity":                            "50",
		"yarn.scheduler.capacity.root.etl.accessible-node-labels":              "gpu",
		"yarn.scheduler.capacity.root.etl.accessible-node-labels.gpu.capacity": "50",
		"yarn.scheduler.capacity.root.ml.capacity":                             "50",
		"yarn.scheduler.capacity.root.ml.accessible-node-labels":               "gpu",
		"yarn.scheduler.capacity.root.ml.accessible-node-labels.gpu.capacity":  "50",
	}
	tree, err := schedconf.ParseTree(conf)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	rates := progress.RateMap{"etl": {"cpu": 1}, "ml": {"cpu": 1}}
	if known {
		rates["ml"]["gpu"] = gpuRate
		rates["etl"]["gpu"] = 1
	}
	s := &decideState{Snap: cluster.Snapshot{Time: now}, Live: conf, Tree: tree, Rates: rates,
		Parts: []progress.PartitionSlots{{Name: "", Slots: map[string]int64{"cpu": 8}}, {Name: "gpu", Slots: map[string]int64{"gpu": 6}}}}
	var recs []calibrate.JobRecord
	for i := 0; i < 30; i++ {
		start := now.Add(-20*time.Hour + time.Duration(i)*20*time.Minute)
		recs = append(recs,
			calibrate.JobRecord{JobID: "e" + string(rune('a'+i)), Queue: "etl", Class: "etl", Start: start, Maps: 8,
				MapSeconds: map[string]float64{"cpu": 8 * 60}, MapCount: map[string]int{"cpu": 8}},
			calibrate.JobRecord{JobID: "m" + string(rune('a'+i)), Queue: "ml", Class: "ml", Start: start.Add(time.Minute), Maps: 8,
				MapSeconds: map[string]float64{"cpu": 8 * 120}, MapCount: map[string]int{"cpu": 8}})
	}
	return s, recs
}

func TestReplayPlanStep(t *testing.T) {
	cases := []struct {
		name      string
		gpuRate   float64
		known     bool
		wantRoute bool
	}{
		{"ml 3x on the measured gpu nodes: routed there", 3, true, true},
		{"ml's gpu rate never measured: the admin's configuration (no route on hope)", 0, false, false},
		{"ml no faster on gpu: nothing gained, the admin's configuration", 1, true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, recs := replayCluster(t, c.gpuRate, c.known)
			held := &replayChoice{}
			st := replayPlanStep{Jobs: func() []calibrate.JobRecord { return recs }, Held: held}
			if err := st.Run(s); err != nil {
				t.Fatal(err)
			}
			ml := s.Targets["root.ml"]
			routed := ml.DefaultLabelExpression != nil && *ml.DefaultLabelExpression == "gpu"
			if routed != c.wantRoute {
				t.Fatalf("ml routed to gpu: %v, want %v; notes %v", routed, c.wantRoute, s.Notes)
			}
			if c.wantRoute {
				if ml.Capacity["gpu"] < 50 || s.Targets["root.etl"].Capacity["gpu"]+ml.Capacity["gpu"] != 100 {
					t.Errorf("gpu capacities etl %v, ml %v: want ml at least at the admin's 50 and the group at 100", s.Targets["root.etl"].Capacity["gpu"], ml.Capacity["gpu"])
				}
				if !strings.Contains(strings.Join(s.Notes, " "), "no class slower") {
					t.Errorf("notes %v: want the replay's reason", s.Notes)
				}
			} else if ml.Capacity["gpu"] != 50 || ml.Capacity[""] != 50 {
				t.Errorf("ml's capacities %v: want the admin's", ml.Capacity)
			}

			// Within the hour the choice is held: no replay runs (the
			// history is not even read), the same targets are written.
			s2, _ := replayCluster(t, c.gpuRate, c.known)
			s2.Snap.Time = s.Snap.Time.Add(30 * time.Minute)
			st.Jobs = func() []calibrate.JobRecord { t.Fatal("the history was read within the hold"); return nil }
			if err := st.Run(s2); err != nil {
				t.Fatal(err)
			}
			ml2 := s2.Targets["root.ml"]
			if (ml2.DefaultLabelExpression != nil) != (ml.DefaultLabelExpression != nil) || ml2.Capacity["gpu"] != ml.Capacity["gpu"] {
				t.Errorf("held choice: %+v, first %+v", ml2, ml)
			}
		})
	}
}

func TestReplayPlanStepTooFewJobs(t *testing.T) {
	s, recs := replayCluster(t, 3, true)
	st := replayPlanStep{Jobs: func() []calibrate.JobRecord { return recs[:10] }, Held: &replayChoice{}}
	if err := st.Run(s); err != nil {
		t.Fatal(err)
	}
	if ml := s.Targets["root.ml"]; ml.DefaultLabelExpression != nil || !strings.Contains(strings.Join(s.Notes, " "), "fewer than 20") {
		t.Fatalf("with 10 jobs: ml %+v, notes %v; want the admin's configuration and the reason", ml, s.Notes)
	}
}

// A leaf is not routed to a partition where one of its classes was never
// measured, even when another of its classes gains there: the replay's
// stand-in rate for the unmeasured one bounds nothing.
func TestReplayPlanStepUnmeasuredClass(t *testing.T) {
	s, recs := replayCluster(t, 3, true)
	s.Rates.(progress.RateMap)["score"] = map[string]float64{"cpu": 1}
	for i := 0; i < 10; i++ {
		recs = append(recs, calibrate.JobRecord{JobID: "s" + string(rune('a'+i)), Queue: "ml", Class: "score",
			Start: s.Snap.Time.Add(-10*time.Hour + time.Duration(i)*time.Hour), Maps: 4,
			MapSeconds: map[string]float64{"cpu": 4 * 60}, MapCount: map[string]int{"cpu": 4}})
	}
	st := replayPlanStep{Jobs: func() []calibrate.JobRecord { return recs }, Held: &replayChoice{}}
	if err := st.Run(s); err != nil {
		t.Fatal(err)
	}
	if ml := s.Targets["root.ml"]; ml.DefaultLabelExpression != nil {
		t.Fatalf("ml routed to %q with score unmeasured on gpu; notes %v", *ml.DefaultLabelExpression, s.Notes)
	}
}

// A leaf that runs Spark apps is not routed, even where its MapReduce
// jobs gain: the history holds no Spark app to replay, so what the route
// does to them is unknown. A held route to it goes at the next run; a
// window after the last Spark app the leaf is judged as before.
func TestReplayPlanStepLeavesSparkLeavesAlone(t *testing.T) {
	spark := sparkLeaves{}
	routed := func(s *decideState) bool {
		ml := s.Targets["root.ml"]
		return ml.DefaultLabelExpression != nil && *ml.DefaultLabelExpression == "gpu"
	}
	held := &replayChoice{}
	s, recs := replayCluster(t, 3, true)
	st := replayPlanStep{Jobs: func() []calibrate.JobRecord { return recs }, Held: held, Spark: spark}
	if err := st.Run(s); err != nil {
		t.Fatal(err)
	}
	if !routed(s) {
		t.Fatalf("without Spark: ml not routed; notes %v", s.Notes)
	}
	steps := []struct {
		name      string
		after     time.Duration
		spark     bool
		wantRoute bool
	}{
		{"a Spark app in ml: the held route goes at the next run", time.Hour, true, false},
		{"the Spark app gone, within the window: still not routed", 2 * time.Hour, false, false},
		{"a window after the last Spark app: routed again", 27 * time.Hour, false, true},
	}
	for _, c := range steps {
		s, _ := replayCluster(t, 3, true)
		s.Snap.Time = s.Snap.Time.Add(c.after)
		if c.spark {
			s.Snap.Apps = []cluster.App{{ID: "application_1_0001", Queue: "ml", Type: "SPARK", State: cluster.AppRunning}}
		}
		// The history moves with the clock: the same day's jobs before now.
		shifted := make([]calibrate.JobRecord, len(recs))
		for i, r := range recs {
			r.Start = r.Start.Add(c.after)
			shifted[i] = r
		}
		st.Jobs = func() []calibrate.JobRecord { return shifted }
		if err := st.Run(s); err != nil {
			t.Fatal(err)
		}
		if routed(s) != c.wantRoute {
			t.Errorf("%s: ml routed %v, want %v; notes %v", c.name, routed(s), c.wantRoute, s.Notes)
		}
		if !c.wantRoute && !strings.Contains(strings.Join(s.Notes, " "), "root.ml ran Spark apps") {
			t.Errorf("%s: notes %v, want the reason", c.name, s.Notes)
		}
	}
}

// The replay's tie-break never depends on the order candidates come in:
// of those within half a percent of the best, the least moved; equal
// moves go to the better mean, then to the name (tuning cluster 36, run
// seed 3, chose etl or adhoc to gpu-a by chance before).
func TestLeastMovedIsOrderFree(t *testing.T) {
	admin := harmConfig{abs: map[string]map[string]float64{
		"root.prod.etl": {"gpu-a": 0.2}, "root.prod.ml": {"gpu-a": 0.05}, "root.research.bi": {"gpu-a": 0.125}, "root.research.adhoc": {"gpu-a": 0.625}}}
	route := func(name string, abs map[string]float64) replayCandidate {
		return replayCandidate{Name: name, Partition: "gpu-a", Abs: abs}
	}
	etl := route("prod.etl→gpu-a 50%", map[string]float64{"root.prod.etl": 0.5, "root.prod.ml": 0.25, "root.research.bi": 0.0625, "root.research.adhoc": 0.1875})
	adhoc := route("research.adhoc→gpu-a 50%", map[string]float64{"root.prod.etl": 0.2, "root.prod.ml": 0.05, "root.research.bi": 0.25, "root.research.adhoc": 0.5})
	far := route("research.bi→gpu-a 100%", map[string]float64{"root.research.bi": 1})
	for _, c := range []struct {
		name  string
		ok    []judgedCandidate
		least float64
		want  string
	}{
		{"least moved wins within half a percent", []judgedCandidate{{far, 100}, {adhoc, 100.4}}, 100, adhoc.Name},
		{"outside half a percent does not count", []judgedCandidate{{far, 100}, {adhoc, 101}}, 100, far.Name},
		{"equal moves: the better mean, whatever the name", []judgedCandidate{{route("x", adhoc.Abs), 100.1}, {route("w", adhoc.Abs), 100.2}}, 100, "x"},
		{"equal moves and means: the name, either order", []judgedCandidate{{route("b", adhoc.Abs), 100}, {route("a", adhoc.Abs), 100}}, 100, "a"},
		{"the same, reversed", []judgedCandidate{{route("a", adhoc.Abs), 100}, {route("b", adhoc.Abs), 100}}, 100, "a"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := leastMoved(c.ok, c.least, admin); got == nil || got.c.Name != c.want {
				t.Fatalf("picked %+v, want %s", got, c.want)
			}
		})
	}
	// moved sums in the leaves' order: the same every time.
	first := etl.moved(admin)
	for range 50 {
		if etl.moved(admin) != first {
			t.Fatal("moved differs between two calls")
		}
	}
}

// A candidate is judged on the history's day, on other draws of it pooled,
// and on each draw alone with the harm goal's 5% margin.
func TestReplayJudgedHarms(t *testing.T) {
	day := func(x, y float64) replay.Result {
		return replay.Result{ByClass: map[string][]float64{"x": {x}, "y": {y}}}
	}
	judged := func(days ...replay.Result) replayJudged {
		return replayJudged{each: days, days: replay.Pooled(days...)}
	}
	base := judged(day(100, 100), day(100, 100), day(100, 100))
	for _, c := range []struct {
		name  string
		cand  replayJudged
		harms bool
	}{
		{"faster everywhere", judged(day(90, 95), day(90, 95), day(90, 95)), false},
		{"slower on the history's own day", judged(day(101, 90), day(90, 90), day(90, 90)), true},
		{"a little slower on another day, faster pooled", judged(day(90, 90), day(104, 90), day(90, 90)), false},
		{"more than 5% slower on another day, faster pooled", judged(day(90, 90), day(106, 90), day(80, 90)), true},
		{"faster on the history's day, slower pooled", judged(day(99, 90), day(103, 90), day(102, 90)), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := c.cand.harms(base); got != c.harms {
				t.Fatalf("harms %v, want %v", got, c.harms)
			}
		})
	}
}
