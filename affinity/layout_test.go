package affinity

import (
	"reflect"
	"strings"
	"testing"
)

func nodesOf(typ, label string, n int, slots int64) []LayoutNode {
	out := make([]LayoutNode, n)
	for i := range out {
		out[i] = LayoutNode{ID: typ + "-" + string(rune('a'+i)) + ":8041", Type: typ, Slots: slots, Label: label}
	}
	return out
}

func join(parts ...[]LayoutNode) []LayoutNode {
	var out []LayoutNode
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func TestPlanLayout(t *testing.T) {
	cpu4 := nodesOf("cpu", "", 4, 8) // the bulk: 32 slots
	gpu1 := nodesOf("gpu", "", 1, 8)
	cases := []struct {
		name       string
		nodes      []LayoutNode
		classes    []LayoutClass
		opt        LayoutOptions
		wantLabels []string            // label names
		wantNodes  map[string][]string // label → nodes to label
		wantSlots  map[string]map[string]int64
		wantNote   string
		wantExists bool
	}{
		{
			// train runs 4× on gpu: the flow sends its 8 slots there, the
			// gpu node gets a label of its own, sort stays on cpu.
			name:  "compute-bound class gets a label",
			nodes: join(cpu4, gpu1),
			classes: []LayoutClass{
				{Name: "train", Queue: "root.ml", Demand: 8, Rates: map[string]float64{"cpu": 1, "gpu": 4}},
				{Name: "sort", Queue: "root.etl", Demand: 24, Rates: map[string]float64{"cpu": 1, "gpu": 1}},
			},
			wantLabels: []string{"gpu"},
			wantNodes:  map[string][]string{"gpu": {"gpu-a:8041"}},
			wantSlots:  map[string]map[string]int64{"train": {"gpu": 8}, "sort": {"cpu": 24}},
		},
		{
			name:  "speedup below the threshold",
			nodes: join(cpu4, gpu1),
			classes: []LayoutClass{
				{Name: "train", Demand: 8, Rates: map[string]float64{"cpu": 1, "gpu": 1.3}},
			},
			wantNote:  "no class runs 1.5× faster",
			wantSlots: map[string]map[string]int64{"train": {"gpu": 8}},
		},
		{
			// io computes 1.6× faster on gpu but its 1 GiB split is local
			// on cpu (200 MiB/s) and off-switch on the compute-only gpu
			// (40 MiB/s): cpu 10 + 5.12 = 15.1 s, gpu 6.25 + 25.6 = 31.9 s.
			name:  "remote reads outweigh the compute gain",
			nodes: join(cpu4, gpu1),
			classes: []LayoutClass{
				{Name: "io", Demand: 8, Rates: map[string]float64{"cpu": 1, "gpu": 1.6}, RefSeconds: 10, BlockMiB: 1024,
					Locality: map[string]Locality{"cpu": {NodeLocal: 1}}},
			},
			wantNote:  "no class runs",
			wantSlots: map[string]map[string]int64{"io": {"cpu": 8}},
		},
		{
			// The same class with no reads to pay for is worth a label.
			name:  "without reads the compute gain wins",
			nodes: join(cpu4, gpu1),
			classes: []LayoutClass{
				{Name: "io", Demand: 8, Rates: map[string]float64{"cpu": 1, "gpu": 1.6}, RefSeconds: 10},
			},
			wantLabels: []string{"gpu"},
			wantNodes:  map[string][]string{"gpu": {"gpu-a:8041"}},
			wantSlots:  map[string]map[string]int64{"io": {"gpu": 8}},
		},
		{
			// Two classes want the 8 gpu slots: a (4×) saves 750‰ per
			// slot there, b (2×) 500‰, so a gets them and only a is the
			// label's reason.
			name:  "scarce gpu goes to the class that gains most",
			nodes: join(cpu4, gpu1),
			classes: []LayoutClass{
				{Name: "b", Demand: 8, Rates: map[string]float64{"cpu": 1, "gpu": 2}},
				{Name: "a", Demand: 8, Rates: map[string]float64{"cpu": 1, "gpu": 4}},
			},
			wantLabels: []string{"gpu"},
			wantNodes:  map[string][]string{"gpu": {"gpu-a:8041"}},
			wantSlots:  map[string]map[string]int64{"a": {"gpu": 8}, "b": {"cpu": 8}},
		},
		{
			name:  "an admin's label is kept",
			nodes: join(cpu4, nodesOf("gpu", "accel", 1, 8)),
			classes: []LayoutClass{
				{Name: "train", Demand: 8, Rates: map[string]float64{"cpu": 1, "gpu": 4}},
			},
			wantNote:  "carry an admin's label",
			wantSlots: map[string]map[string]int64{"train": {"gpu": 8}},
		},
		{
			name:  "a label already in place",
			nodes: join(cpu4, nodesOf("gpu", "gpu", 1, 8)),
			classes: []LayoutClass{
				{Name: "train", Demand: 8, Rates: map[string]float64{"cpu": 1, "gpu": 4}},
			},
			wantLabels: []string{"gpu"},
			wantNodes:  map[string][]string{"gpu": nil},
			wantExists: true,
			wantSlots:  map[string]map[string]int64{"train": {"gpu": 8}},
		},
		{
			// Measured on gpu only: 4× against what? No evidence, no label.
			name:  "measured on one type only",
			nodes: join(cpu4, gpu1),
			classes: []LayoutClass{
				{Name: "train", Demand: 8, Rates: map[string]float64{"gpu": 4}},
			},
			opt:       LayoutOptions{NoExplore: true},
			wantNote:  "no class runs",
			wantSlots: map[string]map[string]int64{"train": {"gpu": 8}},
		},
		{
			// One slot of a 16-slot type (below the 10% default) does not
			// relabel two nodes.
			name:  "too little demand for a whole type",
			nodes: join(cpu4, nodesOf("gpu", "", 2, 8)),
			classes: []LayoutClass{
				{Name: "train", Demand: 1, Rates: map[string]float64{"cpu": 1, "gpu": 4}},
			},
			wantNote:  "would fill 1 of its 16 slots",
			wantSlots: map[string]map[string]int64{"train": {"gpu": 1}},
		},
		{
			// A type never measured is no reason for a speed label,
			// whatever the flow does with it...
			name:  "unmeasured type",
			nodes: join(cpu4, gpu1),
			classes: []LayoutClass{
				{Name: "train", Demand: 40, Rates: map[string]float64{"cpu": 1}},
			},
			opt:       LayoutOptions{NoExplore: true},
			wantNote:  "no class runs",
			wantSlots: map[string]map[string]int64{"train": {"cpu": 32, "gpu": 8}},
		},
		{
			// ...but by default it gets a calibration partition so the
			// classes can be measured there.
			name:  "unmeasured type gets a calibration partition",
			nodes: join(cpu4, gpu1),
			classes: []LayoutClass{
				{Name: "train", Queue: "root.ml", Demand: 40, Rates: map[string]float64{"cpu": 1}},
				{Name: "idle", Queue: "root.x", Demand: 0, Rates: map[string]float64{"cpu": 1}},
			},
			wantLabels: []string{"gpu"},
			wantNodes:  map[string][]string{"gpu": {"gpu-a:8041"}},
			wantSlots:  map[string]map[string]int64{"train": {"cpu": 32, "gpu": 8}},
		},
		{
			// Once one class is measured there, no exploration.
			name:  "measured type is not explored",
			nodes: join(cpu4, gpu1),
			classes: []LayoutClass{
				{Name: "train", Demand: 8, Rates: map[string]float64{"cpu": 1}},
				{Name: "sort", Demand: 8, Rates: map[string]float64{"cpu": 1, "gpu": 1}},
			},
			wantNote: "no class runs",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := PlanLayout(c.nodes, c.classes, c.opt)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, l := range got.Labels {
				names = append(names, l.Name)
				if want, ok := c.wantNodes[l.Name]; ok && !reflect.DeepEqual(l.Nodes, want) {
					t.Errorf("label %s nodes %v, want %v", l.Name, l.Nodes, want)
				}
				if l.Exists != c.wantExists {
					t.Errorf("label %s exists=%v, want %v", l.Name, l.Exists, c.wantExists)
				}
				if l.Reason == "" {
					t.Errorf("label %s has no reason", l.Name)
				}
			}
			if !reflect.DeepEqual(names, c.wantLabels) {
				t.Errorf("labels %v, want %v", names, c.wantLabels)
			}
			for class, want := range c.wantSlots {
				if !reflect.DeepEqual(got.Slots[class], want) {
					t.Errorf("class %s slots %v, want %v", class, got.Slots[class], want)
				}
			}
			if c.wantNote != "" && !strings.Contains(strings.Join(got.Notes, "|"), c.wantNote) {
				t.Errorf("notes %q lack %q", got.Notes, c.wantNote)
			}
		})
	}
}

func TestPlanLayoutBadInput(t *testing.T) {
	ok := []LayoutNode{{ID: "a:1", Type: "cpu", Slots: 8}, {ID: "b:1", Type: "gpu", Slots: 8}}
	cases := []struct {
		name    string
		nodes   []LayoutNode
		classes []LayoutClass
		opt     LayoutOptions
		want    string
	}{
		{"node without type", []LayoutNode{{ID: "a:1", Slots: 8}}, nil, LayoutOptions{}, "node a:1 has no type"},
		{"speedup below 1", ok, nil, LayoutOptions{MinSpeedup: 0.5}, "at least 1"},
		{"negative demand", ok, []LayoutClass{{Name: "x", Demand: -1}}, LayoutOptions{}, "class x has negative demand"},
		{"share above 1", ok, nil, LayoutOptions{MinShare: 2}, "min share"},
		{"bad bandwidth", ok, nil, LayoutOptions{Bandwidth: Bandwidth{NodeLocal: 1}}, "bandwidth must be positive"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := PlanLayout(c.nodes, c.classes, c.opt)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one naming %q", err, c.want)
			}
		})
	}
}

func TestLabelFor(t *testing.T) {
	for in, want := range map[string]string{"gpu": "gpu", "cpu.new": "cpu_new", "-x y": "x_y", "node/type": "node_type"} {
		if got := LabelFor(in); got != want || !labelName.MatchString(got) {
			t.Errorf("LabelFor(%q) = %q, want %q (valid label)", in, got, want)
		}
	}
}
