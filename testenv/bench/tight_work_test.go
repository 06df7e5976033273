package main

import (
	"math"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/experiment"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
)

// By hand: default partition of 3 old nodes (speed 1) and 1 new (speed 2),
// a gpu partition of 1 node (speed 4 for c). Slot-weighted mean of 1/speed:
// default (3·1 + 1·0.5)/4 = 0.875, gpu 0.25.
func TestDecomposeGoalWork(t *testing.T) {
	sc := &sim.Scenario{
		Labels: []sim.LabelSpec{{Name: "gpu"}},
		NodeTypes: []sim.NodeTypeSpec{{Name: "old", Count: 3, MemoryMB: 1000}, {Name: "new", Count: 1, MemoryMB: 1000},
			{Name: "gpu", Count: 1, MemoryMB: 1000, Label: "gpu"}},
		Classes: []sim.ClassSpec{{Name: "c", Speed: map[string]float64{"new": 2, "gpu": 4}}},
		Conf: map[string]string{
			"yarn.scheduler.capacity.root.accessible-node-labels":   "*",
			"yarn.scheduler.capacity.root.q.accessible-node-labels": "",
		},
	}
	cost := partitionCost(sc, "c")
	if math.Abs(cost[""]-0.875) > 1e-9 || math.Abs(cost["gpu"]-0.25) > 1e-9 {
		t.Fatalf("partition cost %v, want default 0.875, gpu 0.25", cost)
	}
	for _, tc := range []struct {
		queue string
		want  int
	}{{"root.q", 1}, {"root.p", 2}} {
		if got := queuePartitions(sc, tc.queue); len(got) != tc.want {
			t.Errorf("%s may use %v, want %d partitions", tc.queue, got, tc.want)
		}
	}
	dl := time.Now()
	// Maps: 100 s of work at speed 1, no reads; least 25 s (on gpu). They
	// ran 40 s on gpu (least 10) and 60 s on old (least 15), of which the
	// maps that started at once 30 s on old (least 6). Reduces used 20 s
	// over a least of 5: the job used 120 s over a minimum of 30.
	// Its first map started 7 s after submission; a second goal job's
	// 9 s, a third had none yet (not counted).
	submit := dl.Add(-time.Hour)
	job := sim.JobResult{Class: "c", Queue: "root.q", Deadline: &dl, Submit: submit, FirstMap: submit.Add(7 * time.Second), TaskSeconds: 120, MinTaskSeconds: 30, MapProc: 100,
		MapUse: map[string]sim.TypeUse{"gpu": {Seconds: 40, Least: 10}, "old": {Seconds: 60, Least: 15, Early: 30, EarlyLeast: 6}}}
	noGoal := sim.JobResult{Class: "c", Queue: "root.q", TaskSeconds: 1000, MinTaskSeconds: 1, Submit: submit, FirstMap: submit.Add(time.Second)}
	second := sim.JobResult{Class: "c", Queue: "root.q", Deadline: &dl, Submit: submit, FirstMap: submit.Add(9 * time.Second)}
	third := sim.JobResult{Class: "c", Queue: "root.q", Deadline: &dl, Submit: submit}
	g := decomposeGoalWork(sc, []experiment.Result{{Jobs: []sim.JobResult{job, noGoal}}, {Jobs: []sim.JobResult{second, third}}})
	if g.least != 30 || g.mapsMin["c"] != 25 || math.Abs(g.reduces["c"]-15) > 1e-9 {
		t.Errorf("least %v, maps' least %v, reduces over %v; want 30, 25, 15", g.least, g.mapsMin["c"], g.reduces["c"])
	}
	// root.q may use the default partition only: bound 100·0.875.
	if math.Abs(g.bound["c"]-87.5) > 1e-9 {
		t.Errorf("partition bound %v, want 87.5", g.bound["c"])
	}
	// Shares of the minimum: gpu +1, old +1.5, reduces +0.5, adding up to
	// 120/30 − 1; of the maps' +2.5, the early maps' (30−6)/30 = +0.8.
	want := "gpu +1.000, old +1.500, reduces +0.500; maps 4.00× their minimum, 1.14× the partition bound; of the maps' part, +0.800 started within 30s of submission"
	if got := g.classFigure("c"); got != want {
		t.Errorf("class figure\n got %s\nwant %s", got, want)
	}
	// The partition bound over the maps' minimum: 87.5/25.
	want = "maps +2.500 (4.00× their minimum, 1.14× the partition bound, which is 3.50× the minimum; +0.800 started within 30s of submission), reduces +0.500, killed 0.000; every goal job at the partition bound (reduces at their least, no partition full): 3.08× the minimum; first map 7s after submission (median; fastest 7s, 90th percentile 7s, 2 jobs)"
	if got := g.totalFigure(); got != want {
		t.Errorf("total figure\n got %s\nwant %s", got, want)
	}
}
