package decide

import (
	"math"
	"strings"
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/progress"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// TestSmallMovesStep on root.{a,b,c}: the admin's 40/30/30, live 50/25/25
// (the sidecar raised a earlier).
func TestSmallMovesStep(t *testing.T) {
	live := mustTree(t, schedconf.Conf{pre + "root.queues": "a,b,c", pre + "root.a.capacity": "50", pre + "root.b.capacity": "25", pre + "root.c.capacity": "25",
		pre + "root.a.maximum-capacity": "80"})
	seen := map[string]SeenValue{SeenKey("root.a", ""): {Share: 40}, SeenKey("root.b", ""): {Share: 30}, SeenKey("root.c", ""): {Share: 30}}
	for _, tc := range []struct {
		name    string
		a, b, c float64 // planned
		maxA    float64 // planned maximum-capacity of a (0: not planned)
		restore string
		minMove float64 // 0: SuggestedMinMovePoints
		want    [3]float64
		wantMax float64
		note    bool
	}{
		{name: "jitter of 3 points: every move held", a: 53, b: 23.5, c: 23.5, want: [3]float64{50, 25, 25}, note: true},
		{name: "a large move passes", a: 60, b: 20, c: 20, want: [3]float64{60, 20, 20}},
		{name: "a small raise of b held, a's cut shrinks to match c's raise", a: 40, b: 27, c: 33,
			want: [3]float64{42, 25, 33}, note: true},
		{name: "back to the admin's values passes, however small", a: 40, b: 30, c: 30, minMove: 20, want: [3]float64{40, 30, 30}},
		{name: "a small restore of b passes, with the cut that pays for it", a: 48, b: 27, c: 25, restore: "root.b", want: [3]float64{48, 27, 25}},
		{name: "a small maximum-capacity move is held", a: 50, b: 25, c: 25, maxA: 83, want: [3]float64{50, 25, 25}, wantMax: 80, note: true},
		{name: "off", a: 53, b: 23.5, c: 23.5, minMove: -1, want: [3]float64{53, 23.5, 23.5}},
	} {
		s := &decideState{Tree: live, Targets: map[string]plan.QueueTarget{
			"root.a": {Capacity: map[string]float64{"": tc.a}}, "root.b": {Capacity: map[string]float64{"": tc.b}}, "root.c": {Capacity: map[string]float64{"": tc.c}}},
			Urgent: map[string]string{}, Restores: map[string]string{},
			Queues: []progress.QueueDemand{{Path: "root.a", Demand: 10}, {Path: "root.b", Demand: 10}, {Path: "root.c", Demand: 10}}}
		if tc.maxA != 0 {
			t := s.Targets["root.a"]
			t.MaxCapacity = map[string]float64{"": tc.maxA}
			s.Targets["root.a"] = t
		}
		if tc.restore != "" {
			s.Restores[tc.restore] = "guarantee"
		}
		minMove := tc.minMove
		if minMove == 0 {
			minMove = SuggestedMinMovePoints
		}
		if err := (smallMovesStep{Seen: seen, MinMove: minMove}).Run(s); err != nil {
			t.Fatal(err)
		}
		var got [3]float64
		sum := 0.0
		for i, q := range []string{"root.a", "root.b", "root.c"} {
			got[i] = s.Targets[q].Capacity[""]
			sum += got[i]
		}
		for i := range got {
			if math.Abs(got[i]-tc.want[i]) > 1e-9 {
				t.Errorf("%s: capacities %v, want %v", tc.name, got, tc.want)
				break
			}
		}
		if math.Abs(sum-100) > 1e-9 {
			t.Errorf("%s: the group sums to %.2f", tc.name, sum)
		}
		if tc.wantMax != 0 {
			if m := s.Targets["root.a"].MaxCapacity[""]; m != tc.wantMax {
				t.Errorf("%s: a's maximum-capacity %.1f, want %.1f", tc.name, m, tc.wantMax)
			}
		}
		noted := len(s.Notes) > 0 && strings.HasPrefix(s.Notes[0], "small moves:")
		if noted != tc.note {
			t.Errorf("%s: notes %q, want a note %v", tc.name, s.Notes, tc.note)
		}
	}
}
