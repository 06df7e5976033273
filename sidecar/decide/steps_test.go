package decide

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/internal/decidefix"
	"github.com/yarn-sidecar/yarn-sidecar/progress"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

const pre = schedconf.Prefix

// The fixtures the decision's tests share with the plumbing's.
var (
	nestedConf    = decidefix.NestedConf
	mustTree      = decidefix.MustTree
	shieldFixture = decidefix.ShieldFixture
	mapModel      = decidefix.MapModel
)

// snapWith is a one-partition cluster of n nodes of 8 GB, 8 vcores, and
// leaf queues with the given demand in 2 GB slots.
func snapWith(n int, demand map[string]int64) cluster.Snapshot {
	s := cluster.Snapshot{Time: time.Unix(1_700_000_000, 0)}
	p := cluster.Partition{Name: ""}
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("n%d:8041", i)
		s.Nodes = append(s.Nodes, cluster.Node{ID: id, Host: fmt.Sprintf("n%d", i), State: cluster.NodeRunning,
			Total: cluster.Resource{MemoryMB: 8192, VCores: 8}})
		p.NodeIDs = append(p.NodeIDs, id)
		p.Total = p.Total.Add(cluster.Resource{MemoryMB: 8192, VCores: 8})
	}
	s.Partitions = []cluster.Partition{p}
	for q, d := range demand {
		s.Queues = append(s.Queues, cluster.Queue{Path: q, Name: q[strings.LastIndex(q, ".")+1:], Leaf: true,
			ByPartition: map[string]cluster.QueueCapacity{"": {Pending: cluster.Resource{MemoryMB: 2048 * d, VCores: d}}}})
	}
	return s
}

func TestSlotsStep(t *testing.T) {
	for _, tc := range []struct {
		nodes int
		want  int64
	}{{0, 0}, {1, 4}, {3, 12}} {
		s := &decideState{Snap: snapWith(tc.nodes, nil), Slot: cluster.Resource{MemoryMB: 2048, VCores: 1}, Types: map[string]string{}}
		if err := (slotsStep{}).Run(s); err != nil {
			t.Fatal(err)
		}
		if got := s.Parts[0].Slots[""]; got != tc.want {
			t.Errorf("%d nodes: %d slots, want %d", tc.nodes, got, tc.want)
		}
	}
}

func TestHierarchicalWeights(t *testing.T) {
	tree := mustTree(t, nestedConf("50", "50", "50", "50", "50", "50"))
	for _, tc := range []struct {
		name   string
		demand map[string]int64
		want   map[string]float64 // weights of busy leaves relative to each other
	}{
		// Everyone busy: the tree's own split, 25% each.
		{"all busy", map[string]int64{"etl": 1, "reports": 1, "adhoc": 1, "ml": 1}, map[string]float64{"etl": 1, "reports": 1, "adhoc": 1, "ml": 1}},
		// reports idle: its share goes to its sibling etl first (prod keeps
		// half), not to the dev subtree.
		{"idle sibling", map[string]int64{"etl": 1, "adhoc": 1, "ml": 1}, map[string]float64{"etl": 2, "adhoc": 1, "ml": 1}},
		// A whole subtree idle: root's children keep their weights (the
		// planner normalises over busy queues).
		{"idle subtree", map[string]int64{"etl": 1, "reports": 1}, map[string]float64{"etl": 1, "reports": 1}},
	} {
		var qs []progress.QueueDemand
		for _, leaf := range tree.Leaves() {
			qs = append(qs, progress.QueueDemand{Path: leaf.Path, Weight: leaf.AbsCapacity[""], Demand: tc.demand[leaf.Name]})
		}
		hierarchicalWeights(tree, qs)
		ref := 0.0
		for _, q := range qs {
			if q.Demand > 0 && ref == 0 {
				ref = q.Weight / tc.want[q.Path[strings.LastIndex(q.Path, ".")+1:]]
			}
		}
		for _, q := range qs {
			name := q.Path[strings.LastIndex(q.Path, ".")+1:]
			if q.Demand == 0 {
				if q.Weight != 0.25 {
					t.Errorf("%s: idle %s weight %g, want its own 0.25", tc.name, name, q.Weight)
				}
				continue
			}
			if math.Abs(q.Weight/ref-tc.want[name]) > 1e-9 {
				t.Errorf("%s: %s relative weight %g, want %g", tc.name, name, q.Weight/ref, tc.want[name])
			}
		}
	}
}

// runSteps runs the plan-to-targets part of the pipeline on a tree.
func runSteps(t *testing.T, live schedconf.Conf, snap cluster.Snapshot, d *PSDecider) *decideState {
	t.Helper()
	dec := d
	if dec == nil {
		dec = &PSDecider{}
	}
	tree := mustTree(t, live)
	fs := &MemorySeen{}
	seen, err := fs.Observe(tree)
	if err != nil {
		t.Fatal(err)
	}
	s := &decideState{Snap: snap, Live: live, Tree: tree, Slot: cluster.Resource{MemoryMB: 2048, VCores: 1},
		Types: map[string]string{}, ClassOf: calibrate.ClassKey("queue").ClassOf}
	for _, st := range dec.steps(seen) {
		if err := st.Run(s); err != nil {
			t.Fatalf("step %s: %v", st.Name(), err)
		}
	}
	return s
}

func TestHierarchyAndTargetsDepth3(t *testing.T) {
	// root.{a.{b.{x,y},z}, c}: x busy, everyone else idle except c.
	live := schedconf.Conf{
		pre + "root.queues": "a,c", pre + "root.a.queues": "b,z", pre + "root.a.b.queues": "x,y",
		pre + "root.a.capacity": "60", pre + "root.c.capacity": "40",
		pre + "root.a.b.capacity": "50", pre + "root.a.z.capacity": "50",
		pre + "root.a.b.x.capacity": "50", pre + "root.a.b.y.capacity": "50",
	}
	snap := snapWith(10, map[string]int64{"root.a.b.x": 40, "root.c": 40})
	s := runSteps(t, live, snap, nil)
	// Every moved group sums to 100% of its parent.
	sums := map[string]float64{}
	for path, tg := range s.Targets {
		if v, ok := tg.Capacity[""]; ok {
			sums[parentOf(path)] += v
		}
	}
	for parent, sum := range sums {
		if math.Abs(sum-100) > 1e-6 {
			t.Errorf("children of %s sum to %g%%, want 100", parent, sum)
		}
	}
	// x (depth 3) and c are the busy leaves with equal demand; x's
	// hierarchical weight is a's whole 60% (its idle siblings pass theirs
	// up), so it is planned at least c's share and its ancestors follow.
	abs := func(p string) float64 { return s.Shares[p][""] }
	if abs("root.a.b.x") < abs("root.c")-1e-9 {
		t.Errorf("x planned %.3f of the cluster, below c's %.3f", abs("root.a.b.x"), abs("root.c"))
	}
	for _, p := range []string{"root.a.b", "root.a"} {
		if abs(p)+1e-9 < abs("root.a.b.x") {
			t.Errorf("%s holds %.3f, less than its descendant x's %.3f", p, abs(p), abs("root.a.b.x"))
		}
	}
	if _, ok := s.Targets["root.a"]; !ok {
		t.Errorf("parent root.a got no target: parents' capacities must move with their subtrees")
	}
}

func TestAnchoredQueuesKeepTheirShare(t *testing.T) {
	// Only etl and reports are listed: dev's subtree is anchored at its
	// 40%, and prod's children divide prod's 60%. reports' work (3) is
	// above its 2.4-container promise (10% of prod's 24 slots), so the PS
	// plan divides prod (work within the promise would keep it there:
	// servedFirstStep).
	live := nestedConf("60", "40", "90", "10", "50", "50")
	snap := snapWith(10, map[string]int64{"root.prod.etl": 40, "root.prod.reports": 3, "root.dev.ml": 30})
	d := &PSDecider{Queues: map[string]QueueWeight{"root.prod.etl": {}, "root.prod.reports": {}}}
	s := runSteps(t, live, snap, d)
	if got := s.Targets["root.prod"].Capacity[""]; math.Abs(got-60) > 1e-6 {
		t.Errorf("prod target %g, want the 60%% dev leaves it", got)
	}
	for _, q := range []string{"root.dev", "root.dev.ml", "root.dev.adhoc"} {
		if tg, ok := s.Targets[q]; ok && len(tg.Capacity) > 0 {
			t.Errorf("%s is anchored (has an unlisted leaf) but got target %v", q, tg.Capacity)
		}
	}
	e, r := s.Targets["root.prod.etl"].Capacity[""], s.Targets["root.prod.reports"].Capacity[""]
	if math.Abs(e+r-100) > 1e-6 || e <= r {
		t.Errorf("prod's children = %g + %g, want 100 with etl (more demand) above reports", e, r)
	}
}

func TestDynamicLeavesAreReportedNotSteered(t *testing.T) {
	live := schedconf.Conf{pre + "root.queues": "users,b", pre + "root.users.capacity": "50", pre + "root.b.capacity": "50",
		pre + "root.users.auto-create-child-queue.enabled": "true"}
	snap := snapWith(4, map[string]int64{"root.users.alice": 3, "root.b": 2})
	s := runSteps(t, live, snap, nil)
	if _, ok := s.Targets["root.users"]; ok {
		t.Errorf("auto-creating parent root.users got a target")
	}
	notes := strings.Join(s.Notes, "\n")
	for _, want := range []string{"root.users creates its leaf queues itself", "root.users.alice was created by the RM"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
}

func TestPlan200LeafNestedTree(t *testing.T) {
	// 10 parents × 4 sub-parents × 5 leaves = 200 leaves at depth 3.
	live := schedconf.Conf{}
	var parents []string
	demand := map[string]int64{}
	for i := 0; i < 10; i++ {
		p := fmt.Sprintf("p%d", i)
		parents = append(parents, p)
		live[pre+"root."+p+".capacity"] = "10"
		var subs []string
		for j := 0; j < 4; j++ {
			sp := fmt.Sprintf("s%d", j)
			subs = append(subs, sp)
			live[pre+"root."+p+"."+sp+".capacity"] = "25"
			var leaves []string
			for k := 0; k < 5; k++ {
				l := fmt.Sprintf("l%d", k)
				leaves = append(leaves, l)
				live[pre+"root."+p+"."+sp+"."+l+".capacity"] = "20"
				if (i+j+k)%3 == 0 {
					demand["root."+p+"."+sp+"."+l] = int64(1 + (i*7+j*3+k)%20)
				}
			}
			live[pre+"root."+p+"."+sp+".queues"] = strings.Join(leaves, ",")
		}
		live[pre+"root."+p+".queues"] = strings.Join(subs, ",")
	}
	live[pre+"root.queues"] = strings.Join(parents, ",")
	snap := snapWith(100, demand)
	d := &PSDecider{}
	dec, err := d.Decide(snap, live)
	if err != nil {
		t.Fatal(err)
	}
	leaves := 0
	for path := range dec.Targets {
		if strings.Count(path, ".") == 3 {
			leaves++
		}
	}
	if leaves != 200 {
		t.Fatalf("%d leaves planned, want 200", leaves)
	}
	plan, err := plan.BuildPlan(snap.Time, live, 1, dec.Targets, plan.SafetyRules{})
	if err != nil {
		t.Fatal(err)
	}
	if err := schedconf.Validate(plan.Desired); err != nil {
		t.Fatalf("the 200-leaf plan does not validate: %v", err)
	}
	after := mustTree(t, plan.Desired)
	for _, q := range after.ByPath {
		if len(q.Children) == 0 {
			continue
		}
		sum := 0.0
		for _, c := range q.Children {
			sum += c.Capacity[""].Percent
		}
		if math.Abs(sum-100) > 1e-6 {
			t.Errorf("children of %s sum to %g", q.Path, sum)
		}
	}
}

func TestBandOf(t *testing.T) {
	for _, tc := range []struct {
		g     Guarantee
		first float64
		want  plan.Band
	}{
		{Guarantee{Min: 0.5, Max: 2}, 20, plan.Band{Lo: 10, Hi: 40}},
		{Guarantee{Min: 0.5, Max: 2}, 60, plan.Band{Lo: 30, Hi: 100}},
		{Guarantee{Min: 0.25, Max: 4, Floor: 5}, 10, plan.Band{Lo: 5, Hi: 40}},
		{Guarantee{Min: 0.5, Max: 2, Floor: 50}, 10, plan.Band{Lo: 20, Hi: 20}},
		{Guarantee{Min: 0.5, Max: 2, Pinned: true}, 15, plan.Band{Lo: 15, Hi: 15}},
		{Guarantee{}, 15, plan.Band{Lo: 0, Hi: 100}},
	} {
		if got := BandOf(tc.g, tc.first); got != tc.want {
			t.Errorf("BandOf(%+v, %g) = %+v, want %+v", tc.g, tc.first, got, tc.want)
		}
	}
}

func TestFitBands(t *testing.T) {
	for _, tc := range []struct {
		name  string
		want  map[string]float64
		bands map[string]plan.Band
		ok    bool
		check map[string]float64
	}{
		{"inside", map[string]float64{"a": 50, "b": 50}, map[string]plan.Band{"a": {Lo: 0, Hi: 100}, "b": {Lo: 0, Hi: 100}}, true, map[string]float64{"a": 50, "b": 50}},
		{"clamp and spread", map[string]float64{"a": 90, "b": 5, "c": 5}, map[string]plan.Band{"a": {Lo: 10, Hi: 60}, "b": {Lo: 10, Hi: 60}, "c": {Lo: 10, Hi: 60}}, true,
			map[string]float64{"a": 60, "b": 20, "c": 20}},
		{"cannot fit", map[string]float64{"a": 90, "b": 10}, map[string]plan.Band{"a": {Lo: 0, Hi: 40}, "b": {Lo: 0, Hi: 40}}, false, nil},
	} {
		got, ok := plan.FitBands(tc.want, tc.bands)
		if ok != tc.ok {
			t.Errorf("%s: ok=%v, want %v", tc.name, ok, tc.ok)
			continue
		}
		for q, v := range tc.check {
			if math.Abs(got[q]-v) > 1e-9 {
				t.Errorf("%s: %s=%g, want %g", tc.name, q, got[q], v)
			}
		}
	}
}

func TestGuaranteeStepKeepsBands(t *testing.T) {
	// Four root queues at 25%; only one busy: the plan wants ~all for it,
	// the default band caps it at 4×25 = 100 and keeps the idle ones at
	// ≥ 0.25×25; with 0.5x–2x it is capped at 50.
	live := schedconf.Conf{pre + "root.queues": "a,b,c,d"}
	for _, q := range []string{"a", "b", "c", "d"} {
		live[pre+"root."+q+".capacity"] = "25"
	}
	snap := snapWith(10, map[string]int64{"root.a": 100})
	for _, tc := range []struct {
		band   Guarantee
		lo, hi float64
	}{
		{Guarantee{Min: 0.5, Max: 2}, 12.5, 50},
		{Guarantee{Min: 0.25, Max: 4}, 6.25, 100},
	} {
		s := runSteps(t, live, snap, &PSDecider{Guarantees: GuaranteeBands{Default: tc.band}})
		sum := 0.0
		for q, tg := range s.Targets {
			v := tg.Capacity[""]
			sum += v
			if v < tc.lo-1e-9 || v > tc.hi+1e-9 {
				t.Errorf("band %+v: %s target %g outside [%g, %g]", tc.band, q, v, tc.lo, tc.hi)
			}
		}
		if math.Abs(sum-100) > 1e-6 {
			t.Errorf("band %+v: targets sum to %g", tc.band, sum)
		}
	}
}

func TestWeightModeSupported(t *testing.T) {
	for _, tc := range []struct {
		v  string
		ok bool
	}{{"3.4.1", true}, {"3.4.0", true}, {"3.5.0-SNAPSHOT", true}, {"4.0.0", true}, {"3.3.6", false}, {"2.10.2", false}, {"", false}, {"x.y", false}} {
		if ok, why := WeightModeSupported(tc.v); ok != tc.ok || (!ok && why == "") {
			t.Errorf("WeightModeSupported(%q) = %v (%q), want %v", tc.v, ok, why, tc.ok)
		}
	}
}

func TestModeStep(t *testing.T) {
	snap := snapWith(10, map[string]int64{"root.prod.etl": 20, "root.prod.reports": 5, "root.dev.adhoc": 10, "root.dev.ml": 10})
	for _, tc := range []struct {
		name    string
		live    schedconf.Conf
		version string
		mode    schedconf.Mode // of root.prod.etl's target, "" = none
		note    string
	}{
		{"percentage", nestedConf("50", "50", "50", "50", "50", "50"), "3.3.6", schedconf.ModePercentage, ""},
		{"weights on 3.4", nestedConf("1w", "1w", "3w", "1w", "1w", "1w"), "3.4.1", schedconf.ModeWeight, ""},
		{"weights on 3.3", nestedConf("1w", "1w", "3w", "1w", "1w", "1w"), "3.3.6", "", "refuses weights"},
		{"absolute", nestedConf("[memory=40960,vcores=40]", "[memory=40960,vcores=40]", "[memory=20480,vcores=20]", "[memory=20480,vcores=20]",
			"[memory=20480,vcores=20]", "[memory=20480,vcores=20]"), "3.3.6", schedconf.ModeAbsolute, ""},
		{"mixed siblings", nestedConf("50", "50", "2w", "50", "50", "50"), "3.4.1", "", "mix capacity modes"},
	} {
		s := runSteps(t, tc.live, snap, &PSDecider{RMVersion: tc.version})
		tg := s.Targets["root.prod.etl"]
		_, has := tg.Capacity[""]
		switch {
		case tc.mode == "" && has:
			t.Errorf("%s: etl got a capacity target %v, want none", tc.name, tg.Capacity)
		case tc.mode != "" && !has:
			t.Errorf("%s: etl got no capacity target (notes %v)", tc.name, s.Notes)
		case tc.mode != "" && tg.Encoding[""].Mode != tc.mode:
			t.Errorf("%s: encoding %q, want %q", tc.name, tg.Encoding[""].Mode, tc.mode)
		}
		if tc.note != "" && !strings.Contains(strings.Join(s.Notes, "\n"), tc.note) {
			t.Errorf("%s: notes lack %q: %v", tc.name, tc.note, s.Notes)
		}
	}
}

func TestLocalityResetStep(t *testing.T) {
	for _, tc := range []struct {
		home string
		keep bool
		live string
		want int
	}{{"gpu", false, "", 1}, {"gpu", true, "", 0}, {"gpu", false, "false", 0}, {"", false, "", 0}} {
		s := &decideState{Live: schedconf.Conf{pre + "rack-locality-full-reset": tc.live},
			Plan: progress.CapacityPlan{Queues: []progress.QueuePlan{{Path: "root.a", Home: tc.home}}}}
		if err := (localityResetStep{Keep: tc.keep}).Run(s); err != nil {
			t.Fatal(err)
		}
		if len(s.Globals) != tc.want {
			t.Errorf("home %q keep %v live %q: %d globals, want %d", tc.home, tc.keep, tc.live, len(s.Globals), tc.want)
		}
	}
}

func TestListingAParentForItsBandDoesNotRestrictSteering(t *testing.T) {
	live := nestedConf("60", "40", "50", "50", "50", "50")
	snap := snapWith(10, map[string]int64{"root.prod.etl": 40, "root.dev.ml": 30})
	d := &PSDecider{Queues: map[string]QueueWeight{"root.prod": {}},
		Guarantees: GuaranteeBands{Queues: map[string]Guarantee{"root.prod": {Pinned: true}}}}
	s := runSteps(t, live, snap, d)
	if len(s.Queues) != 4 {
		t.Errorf("%d leaves planned, want all 4", len(s.Queues))
	}
	if got := s.Targets["root.prod"].Capacity[""]; math.Abs(got-60) > 1e-6 {
		t.Errorf("pinned parent root.prod target %g, want its first-seen 60", got)
	}
}
