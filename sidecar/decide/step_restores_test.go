package decide

import (
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/deadline"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// TestRestoresStep on root.{a,b}, live 70/30, the admin's 50/50.
func TestRestoresStep(t *testing.T) {
	tree := mustTree(t, schedconf.Conf{pre + "root.queues": "a,b", pre + "root.a.capacity": "70", pre + "root.b.capacity": "30"})
	seen := map[string]SeenValue{SeenKey("root.a", ""): {Share: 50, AbsShare: 0.5}, SeenKey("root.b", ""): {Share: 50, AbsShare: 0.5}}
	goal := time.Unix(1_700_000_000, 0)
	goalJob := []deadline.QueueReport{{Queue: "root.a", Jobs: []deadline.JobReport{{Name: "j1", Queue: "root.a", Deadline: &goal}}}}
	for _, tc := range []struct {
		name      string
		targets   map[string]float64
		deadlines []deadline.QueueReport
		want      map[string]string // queue → part of the reason
	}{
		{"below its guarantee and raised: restores", map[string]float64{"root.a": 60, "root.b": 40}, nil, map[string]string{"root.b": "guarantee"}},
		{"below its guarantee, unchanged: nothing", map[string]float64{"root.a": 70, "root.b": 30}, nil, nil},
		{"below its guarantee, lowered further: nothing", map[string]float64{"root.a": 80, "root.b": 20}, nil, nil},
		{"above its guarantee and raised, no goal: nothing", map[string]float64{"root.a": 80, "root.b": 20}, nil, nil},
		{"raised with a goal job: restores", map[string]float64{"root.a": 80, "root.b": 20}, goalJob, map[string]string{"root.a": "goals"}},
	} {
		s := &decideState{Tree: tree, Deadlines: tc.deadlines, Targets: map[string]plan.QueueTarget{}}
		for q, v := range tc.targets {
			s.Targets[q] = plan.QueueTarget{Capacity: map[string]float64{"": v}}
		}
		if err := (restoresStep{Seen: seen}).Run(s); err != nil {
			t.Fatal(err)
		}
		if len(s.Restores) != len(tc.want) {
			t.Errorf("%s: restores %v, want %v", tc.name, s.Restores, tc.want)
			continue
		}
		for q, part := range tc.want {
			if !strings.Contains(s.Restores[q], part) {
				t.Errorf("%s: %s reason %q, want it to name %q", tc.name, q, s.Restores[q], part)
			}
		}
	}
}

// TestRestoresStepHome: root.a routed to gpu by the sidecar; the admin's
// home was the default partition.
func TestRestoresStepHome(t *testing.T) {
	tree := mustTree(t, schedconf.Conf{pre + "root.queues": "a,b", pre + "root.a.capacity": "50", pre + "root.b.capacity": "50",
		pre + "root.accessible-node-labels": "gpu", pre + "root.accessible-node-labels.gpu.capacity": "100",
		pre + "root.a.accessible-node-labels": "gpu", pre + "root.a.accessible-node-labels.gpu.capacity": "50",
		pre + "root.b.accessible-node-labels": "gpu", pre + "root.b.accessible-node-labels.gpu.capacity": "50",
		pre + "root.a.default-node-label-expression": "gpu"})
	def, gpu := "", "gpu"
	for _, tc := range []struct {
		name     string
		seenHome *string
		target   string
		want     bool
	}{
		{"back to the admin's home", &def, "", true},
		{"stays where the sidecar routed it", &def, "gpu", false},
		{"to a partition that was not the admin's home", &gpu, "", false},
		{"admin's home unknown (older record)", nil, "", false},
	} {
		seen := map[string]SeenValue{SeenKey("root.a", ""): {Share: 50, AbsShare: 0.5, Home: tc.seenHome}}
		home := tc.target
		s := &decideState{Tree: tree, Targets: map[string]plan.QueueTarget{"root.a": {Capacity: map[string]float64{"": 50}, DefaultLabelExpression: &home}}}
		if err := (restoresStep{Seen: seen}).Run(s); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(s.Restores["root.a"], "home partition"); got != tc.want {
			t.Errorf("%s: restores %v, want a move home %v", tc.name, s.Restores, tc.want)
		}
	}
	// FirstSeen records the home on the default-partition entry.
	seen, err := (&MemorySeen{}).Observe(tree)
	if err != nil {
		t.Fatal(err)
	}
	if h := seen[SeenKey("root.a", "")].Home; h == nil || *h != "gpu" {
		t.Errorf("first-seen home of root.a = %v, want gpu", h)
	}
	if h := seen[SeenKey("root.a", "gpu")].Home; h != nil {
		t.Errorf("gpu entry carries a home %q; only the default partition's does", *h)
	}
}
