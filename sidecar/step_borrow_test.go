package sidecar

import (
	"math"
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// A 640 GB gpu partition shared by two queues (hetero-100's gpu nodes);
// the plan sends root.a's jobs to gpu with a 30% guarantee there and, in
// most cases, root.b's with 45%. When both ask, the policy's ideal for a is
// 30 × 100 / 75 = 40% of gpu; the cap is the larger of that and what a
// holds there (percent of the parent's gpu, rounded up).
func TestBorrowCapStep(t *testing.T) {
	const gpuMB = 655360
	live := schedconf.Conf{
		"yarn.scheduler.capacity.root.queues":                                        "a,b",
		"yarn.scheduler.capacity.root.accessible-node-labels":                        "*",
		"yarn.scheduler.capacity.root.accessible-node-labels.gpu.capacity":           "100",
		"yarn.scheduler.capacity.root.a.capacity":                                    "50",
		"yarn.scheduler.capacity.root.b.capacity":                                    "50",
		"yarn.scheduler.capacity.root.a.accessible-node-labels":                      "gpu",
		"yarn.scheduler.capacity.root.b.accessible-node-labels":                      "gpu",
		"yarn.scheduler.capacity.root.a.accessible-node-labels.gpu.capacity":         "50",
		"yarn.scheduler.capacity.root.b.accessible-node-labels.gpu.capacity":         "50",
		"yarn.scheduler.capacity.root.a.accessible-node-labels.gpu.maximum-capacity": "80",
	}
	tree := mustTree(t, live)
	gpu, none := "gpu", ""
	for _, tc := range []struct {
		name      string
		on        bool
		onPurpose bool
		disabled  []string
		home      *string
		bHome     string // "plan": the plan sends b to gpu; "live": b's live default label is gpu; "": b stays home
		usedMB    int64
		want      float64 // the gpu maximum-capacity target; -1: not set by the step
	}{
		{"holds less than its ideal: capped at the ideal", true, false, nil, &gpu, "plan", 64 * 1024, 40},
		{"holds exactly its ideal: capped there (no kill)", true, false, nil, &gpu, "plan", 262144, 40},
		{"holds a little more: the live maximum stands (a cap below use is preempted)", true, false, nil, &gpu, "plan", 262144 + 100, 80},
		{"b sent there by the live configuration (50%)", true, false, nil, &gpu, "live", 64 * 1024, 37.5},
		{"live maximum within borrowSlack above the ideal: no write", true, false, nil, &gpu, "plan-44", 64 * 1024, 44},
		{"nobody else sent there: a may take all of it", true, false, nil, &gpu, "", 64 * 1024, -1},
		{"preemption off: borrows freely", false, false, nil, &gpu, "plan", 64 * 1024, -1},
		{"preemption on purpose: borrows freely", true, true, nil, &gpu, "plan", 64 * 1024, -1},
		{"queue opts out of preemption: nothing to take back", true, false, []string{"root.a"}, &gpu, "plan", 64 * 1024, -1},
		{"steered to the default partition: as stock", true, false, nil, &none, "plan", 64 * 1024, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := cluster.Queue{Path: "root.b", Name: "b", Leaf: true}
			if tc.bHome == "live" {
				b.DefaultLabelExpression = "gpu"
			}
			snap := cluster.Snapshot{
				Partitions: []cluster.Partition{{Name: "", Total: cluster.Resource{MemoryMB: gpuMB}}, {Name: "gpu", Total: cluster.Resource{MemoryMB: gpuMB}}},
				Queues: []cluster.Queue{{Path: "root.a", Name: "a", Leaf: true,
					ByPartition: map[string]cluster.QueueCapacity{"gpu": {Used: cluster.Resource{MemoryMB: tc.usedMB}}}}, b}}
			tr := tree
			if tc.bHome == "plan-44" {
				l := schedconf.Conf{}
				for k, v := range live {
					l[k] = v
				}
				l["yarn.scheduler.capacity.root.a.accessible-node-labels.gpu.maximum-capacity"] = "44"
				tr = mustTree(t, l)
			}
			s := &decideState{Snap: snap, Tree: tr, Live: live,
				Preemption: &PreemptionStatus{PreemptionState: PreemptionState{On: tc.on, Disabled: tc.disabled}},
				Targets: map[string]QueueTarget{"root.a": {Capacity: map[string]float64{"": 50, "gpu": 30},
					MaxCapacity: map[string]float64{"": 100, "gpu": 100}, DefaultLabelExpression: tc.home}}}
			if tc.bHome == "plan" || tc.bHome == "plan-44" {
				s.Targets["root.b"] = QueueTarget{Capacity: map[string]float64{"": 50, "gpu": 45},
					MaxCapacity: map[string]float64{"": 100, "gpu": 100}, DefaultLabelExpression: &gpu}
			}
			if err := (borrowCapStep{OnPurpose: tc.onPurpose}).Run(s); err != nil {
				t.Fatal(err)
			}
			got := s.Targets["root.a"].MaxCapacity["gpu"]
			want := tc.want
			if want < 0 {
				want = 100 // targetsStep's value, untouched
			}
			if math.Abs(got-want) > 1e-9 {
				t.Fatalf("gpu maximum-capacity %g, want %g", got, want)
			}
			if d := s.Targets["root.a"].MaxCapacity[""]; d != 100 {
				t.Fatalf("default partition maximum-capacity %g, want 100 (untouched)", d)
			}
		})
	}
	t.Run("no guard: no step", func(t *testing.T) {
		s := &decideState{Tree: tree, Targets: map[string]QueueTarget{"root.a": {Capacity: map[string]float64{"gpu": 30},
			MaxCapacity: map[string]float64{"gpu": 100}, DefaultLabelExpression: &gpu}}}
		if err := (borrowCapStep{}).Run(s); err != nil || s.Targets["root.a"].MaxCapacity["gpu"] != 100 {
			t.Fatalf("without a preemption status the step changed the target (err %v)", err)
		}
	})
}
