package decide

import (
	"math"
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/progress"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// servedState is root.{a,b,c}, admin 60/20/20 in the default partition and
// in gpu; each partition has 100 slots.
func servedState(t *testing.T, demand map[string]int64, planned map[string]map[string]float64, home map[string]string) *decideState {
	t.Helper()
	conf := schedconf.Conf{pre + "root.queues": "a,b,c"}
	for q, c := range map[string]string{"a": "60", "b": "20", "c": "20"} {
		conf[pre+"root."+q+".capacity"] = c
		conf[pre+"root."+q+".accessible-node-labels"] = "gpu"
		conf[pre+"root."+q+".accessible-node-labels.gpu.capacity"] = c
	}
	s := &decideState{Tree: mustTree(t, conf), Parts: []progress.PartitionSlots{
		{Name: "", Slots: map[string]int64{"t": 100}}, {Name: "gpu", Slots: map[string]int64{"g": 100}}}}
	for _, q := range []string{"root.a", "root.b", "root.c"} {
		s.Queues = append(s.Queues, progress.QueueDemand{Path: q, Demand: demand[q], Accessible: []string{"", "gpu"}})
		caps := map[string]float64{}
		for part, v := range planned[q] {
			caps[part] = v
		}
		s.Plan.Queues = append(s.Plan.Queues, progress.QueuePlan{Path: q, Home: home[q], Capacity: caps})
	}
	return s
}

func servedSeen() map[string]SeenValue {
	seen := map[string]SeenValue{}
	for q, v := range map[string]float64{"root.a": 0.6, "root.b": 0.2, "root.c": 0.2} {
		for _, part := range []string{"", "gpu"} {
			seen[SeenKey(q, part)] = SeenValue{Share: 100 * v, AbsShare: v}
		}
	}
	return seen
}

func TestServedFirstStep(t *testing.T) {
	busy := map[string]int64{"root.a": 80, "root.c": 50}
	with := func(b int64) map[string]int64 {
		d := map[string]int64{"root.b": b}
		for q, v := range busy {
			d[q] = v
		}
		return d
	}
	plan := map[string]map[string]float64{"root.a": {"": 70}, "root.b": {"": 5}, "root.c": {"": 25}}
	for _, tc := range []struct {
		name     string
		demand   map[string]int64
		planned  map[string]map[string]float64
		home     map[string]string
		want     map[string]float64 // default partition
		wantHome string             // root.b's
	}{
		{"work within the promise: kept at it", with(10), plan, nil,
			map[string]float64{"root.a": 70 - 15*70.0/95, "root.b": 20, "root.c": 25 - 15*25.0/95}, ""},
		{"work exactly the promise: kept at it", with(20), plan, nil,
			map[string]float64{"root.a": 70 - 15*70.0/95, "root.b": 20, "root.c": 25 - 15*25.0/95}, ""},
		{"more work than the promise: the plan stands", with(21), plan, nil,
			map[string]float64{"root.a": 70, "root.b": 5, "root.c": 25}, ""},
		{"idle: left to the deadline step's floors", with(0), plan, nil,
			map[string]float64{"root.a": 70, "root.b": 5, "root.c": 25}, ""},
		{"planned above the promise: unchanged", with(10),
			map[string]map[string]float64{"root.a": {"": 50}, "root.b": {"": 30}, "root.c": {"": 20}}, nil,
			map[string]float64{"root.a": 50, "root.b": 30, "root.c": 20}, ""},
		{"routed to another partition: the route stands (the plan's gain)", with(10),
			map[string]map[string]float64{"root.a": {"": 75}, "root.b": {"gpu": 30}, "root.c": {"": 25, "gpu": 70}},
			map[string]string{"root.b": "gpu"},
			map[string]float64{"root.a": 75, "root.b": 0, "root.c": 25}, "gpu"},
	} {
		s := servedState(t, tc.demand, tc.planned, tc.home)
		if err := (servedFirstStep{Seen: servedSeen()}).Run(s); err != nil {
			t.Fatal(err)
		}
		for _, qp := range s.Plan.Queues {
			if got := qp.Capacity[""]; math.Abs(got-tc.want[qp.Path]) > 1e-6 {
				t.Errorf("%s: %s at %.3f%%, want %.3f%%", tc.name, qp.Path, got, tc.want[qp.Path])
			}
			if qp.Path == "root.b" && qp.Home != tc.wantHome {
				t.Errorf("%s: root.b home %q, want %q", tc.name, qp.Home, tc.wantHome)
			}
		}
	}
}
