package decide

import (
	"math"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/deadline"
	"github.com/yarn-sidecar/yarn-sidecar/progress"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// The deadline step calibrates the model with the class's residuals: a
// job the model finishes in time is at risk once the class's earlier runs
// say such predictions ran late, and its queue weighs more.
func TestDeadlineStepUsesResiduals(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	tree := mustTree(t, schedconf.Conf{pre + "root.queues": "a,b", pre + "root.a.capacity": "50", pre + "root.b.capacity": "50"})
	// 8 maps of 10 s on 2 containers: the model says 40 s; the goal is 50 s away.
	models := map[string]deadline.PhaseModel{"etl": {Map: deadline.LogNormal{Mu: math.Log(10)}}}
	app := cluster.App{ID: "application_1_0001", Name: "j", Queue: "root.a", State: cluster.AppRunning, Progress: 20, Type: "MAPREDUCE",
		StartedTime: t0.Add(-10 * time.Minute), Tags: []string{"deadline=+10m50s", "jobclass=etl"}, RunningContainers: 3,
		Job: &cluster.Job{MapsTotal: 10, MapsCompleted: 2}}
	late := deadline.NewResiduals()
	for i := 0; i < deadline.DefaultResidualMinN; i++ {
		late.Add(deadline.Residual{Class: "etl", Stage: 20, Ratio: 1.5 + 0.1*float64(i)})
	}
	for _, tc := range []struct {
		name        string
		residuals   func() *deadline.Residuals
		wantVerdict string
		wantWeight  float64
	}{
		{"no residuals: the model's verdict", nil, deadline.OnTrack, 1},
		{"the class runs late: at risk, queue weighed up", func() *deadline.Residuals { return late }, deadline.AtRisk, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &decideState{Snap: cluster.Snapshot{Time: t0, Apps: []cluster.App{app}}, Tree: tree,
				ClassOf: func(a cluster.App) string { v, _ := a.Tag("jobclass"); return v },
				Parts:   []progress.PartitionSlots{{Name: "", Slots: map[string]int64{"t": 100}}},
				Queues:  []progress.QueueDemand{{Path: "root.a", Weight: 1}, {Path: "root.b", Weight: 1}}}
			st := deadlineStep{Models: func() map[string]deadline.PhaseModel { return models }, Residuals: tc.residuals, Confidence: 0.9, Samples: 20}
			if err := st.Run(s); err != nil {
				t.Fatal(err)
			}
			j := s.Deadlines[0].Jobs[0]
			if j.Verdict != tc.wantVerdict || s.Queues[0].Weight != tc.wantWeight || s.Queues[1].Weight != 1 {
				t.Errorf("verdict %q, weights %v/%v; want %q, %v/1", j.Verdict, s.Queues[0].Weight, s.Queues[1].Weight, tc.wantVerdict, tc.wantWeight)
			}
		})
	}
}

// The deadline step costs a running reduce at its node type's fit: the
// class's reduces take 100 s over all nodes but 10 s on gpu nodes, and the
// job's one reduce runs on a gpu node with 60 s to its goal. Known to be
// on gpu (the snapshot's node and the classifier's type), it is on track;
// with the type unknown it is costed at the mixture (100 s) and one
// reduce cannot meet the goal whatever the queue holds.
func TestDeadlineStepReducesByNodeType(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	tree := mustTree(t, schedconf.Conf{pre + "root.queues": "a,b", pre + "root.a.capacity": "50", pre + "root.b.capacity": "50"})
	models := map[string]deadline.PhaseModel{"etl": {Map: deadline.LogNormal{Mu: math.Log(10)}, Reduce: deadline.LogNormal{Mu: math.Log(100)},
		HasReduce: true, ReduceOn: map[string]deadline.LogNormal{"gpu": {Mu: math.Log(10)}}}}
	app := cluster.App{ID: "application_1_0001", Name: "j", Queue: "root.a", State: cluster.AppRunning, Progress: 90, Type: "MAPREDUCE",
		StartedTime: t0.Add(-10 * time.Minute), Tags: []string{"deadline=+11m", "jobclass=etl"}, RunningContainers: 2,
		Job: &cluster.Job{MapsTotal: 10, MapsCompleted: 10, ReducesTotal: 1, ReducesRunning: 1,
			RunningReduces: []float64{0}, RunningReducesElapsed: []float64{0}, RunningReduceNodes: []string{"gpu1:8042"}}}
	nodes := []cluster.Node{{ID: "gpu1:45454", Host: "gpu1", HTTPAddress: "gpu1:8042"}}
	for _, tc := range []struct {
		name        string
		types       map[string]string
		wantVerdict string
	}{
		{"the reduce's node is a gpu node: its fit, on track", map[string]string{"gpu1:45454": "gpu"}, deadline.OnTrack},
		{"the node's type unknown: the mixture, 100 s, cannot meet", map[string]string{}, deadline.CannotMeet},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &decideState{Snap: cluster.Snapshot{Time: t0, Apps: []cluster.App{app}, Nodes: nodes}, Tree: tree, Types: tc.types,
				ClassOf: func(a cluster.App) string { v, _ := a.Tag("jobclass"); return v },
				Parts:   []progress.PartitionSlots{{Name: "", Slots: map[string]int64{"t": 100}}},
				Queues:  []progress.QueueDemand{{Path: "root.a", Weight: 1}, {Path: "root.b", Weight: 1}}}
			st := deadlineStep{Models: func() map[string]deadline.PhaseModel { return models }, Confidence: 0.9, Samples: 50}
			if err := st.Run(s); err != nil {
				t.Fatal(err)
			}
			if j := s.Deadlines[0].Jobs[0]; j.Verdict != tc.wantVerdict {
				t.Errorf("verdict %q (P50 in %v), want %q", j.Verdict, j.P50.Sub(t0), tc.wantVerdict)
			}
		})
	}
}
