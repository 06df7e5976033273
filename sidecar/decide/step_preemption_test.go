package decide

import (
	"math"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

func boolp(b bool) *bool { return &b }

func TestPreemptionDetect(t *testing.T) {
	rmOn := cluster.Snapshot{Queues: []cluster.Queue{{Path: "root.a", Leaf: true, PreemptionDisabled: boolp(false)},
		{Path: "root.b", Leaf: true, PreemptionDisabled: boolp(true)}}}
	rmOff := cluster.Snapshot{Queues: []cluster.Queue{{Path: "root.a", Leaf: true, PreemptionDisabled: boolp(true)}}}
	silent := cluster.Snapshot{Queues: []cluster.Queue{{Path: "root.a", Leaf: true}}}
	siteOn := map[string]string{monitorEnableKey: "true"}
	siteOff := map[string]string{monitorEnableKey: "false"}
	cases := []struct {
		name       string
		snap       cluster.Snapshot
		configured string
		site       map[string]string
		on         bool
		source     string
	}{
		{"RM wins over config and yarn-site", rmOn, "off", siteOff, true, PreemptionFromRM},
		{"RM says off everywhere", rmOff, "on", siteOn, false, PreemptionFromRM},
		{"config when the RM is silent", silent, "off", siteOn, false, PreemptionFromConfig},
		{"yarn-site when config is silent", silent, "", siteOff, false, PreemptionFromHadoopConf},
		{"nobody says: assumed on", silent, "", nil, true, PreemptionAssumed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st := PreemptionDetect(tc.snap, tc.configured, tc.site)
			if st.On != tc.on || st.Source != tc.source {
				t.Fatalf("got on=%v from %s, want on=%v from %s", st.On, st.Source, tc.on, tc.source)
			}
		})
	}
	if st := PreemptionDetect(rmOn, "", nil); len(st.Disabled) != 1 || st.Disabled[0] != "root.b" {
		t.Fatalf("disabled queues: %v", st.Disabled)
	}
}

// cutWorld is a 10-slot partition (20 GB, 2 GB containers) with queues a
// and b at 50% each: a runs 8 maps at progress 0.1 … 0.8 of a 100 s map,
// b runs 2 and asks for 6 more.
type cutWorld struct {
	conf         schedconf.Conf
	aMaps        []float64
	bUsed, bPend int64
}

func newCutWorld() *cutWorld {
	return &cutWorld{conf: schedconf.Conf{
		"yarn.scheduler.capacity.root.queues": "a,b", "yarn.scheduler.capacity.root.a.capacity": "50",
		"yarn.scheduler.capacity.root.b.capacity": "50"},
		aMaps: []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8}, bUsed: 2 * 2048, bPend: 6 * 2048}
}

func (w *cutWorld) snap() cluster.Snapshot {
	aUsed := int64(len(w.aMaps)) * 2048
	size := cluster.Resource{MemoryMB: 2048, VCores: 1}
	return cluster.Snapshot{Time: time.Unix(10_000, 0),
		Partitions: []cluster.Partition{{Name: "", Total: cluster.Resource{MemoryMB: 20480, VCores: 10}}},
		Queues: []cluster.Queue{
			{Path: "root.a", Name: "a", Leaf: true, PreemptionDisabled: boolp(false), ByPartition: map[string]cluster.QueueCapacity{"": {Used: cluster.Resource{MemoryMB: aUsed}}}},
			{Path: "root.b", Name: "b", Leaf: true, PreemptionDisabled: boolp(false), ByPartition: map[string]cluster.QueueCapacity{"": {Used: cluster.Resource{MemoryMB: w.bUsed}, Pending: cluster.Resource{MemoryMB: w.bPend}}}},
		},
		Apps: []cluster.App{
			{ID: "app_a", Name: "A", Queue: "root.a", State: cluster.AppRunning, Tags: []string{"jobclass=x"}, RunningContainers: len(w.aMaps) + 1,
				Job: &cluster.Job{StartTime: time.Unix(9_000, 0), MapsTotal: 100, ContainerSize: size, RunningMaps: append([]float64(nil), w.aMaps...)}},
			{ID: "app_b", Name: "B", Queue: "root.b", State: cluster.AppRunning, Tags: []string{"jobclass=x"}, RunningContainers: 3,
				Job: &cluster.Job{StartTime: time.Unix(9_000, 0), MapsTotal: 100, ContainerSize: size}},
		}}
}

// rmActs plays the RM after a cycle: the predicted kills happen (least
// advanced first) and b gets the containers.
func (w *cutWorld) rmActs(g *PreemptionGuard, snap cluster.Snapshot) {
	tree, _ := schedconf.ParseTree(w.conf)
	st := PreemptionDetect(snap, "", nil)
	k, _ := TotalLoss(PredictPreemption(snap, GuaranteesOf(tree, nil, snap), st, g.workDone(snap)))
	for i := 0; i < k && len(w.aMaps) > 0; i++ {
		w.aMaps = w.aMaps[1:] // sorted ascending: the least advanced goes first
		w.bUsed += 2048
		w.bPend -= 2048
	}
}

// Hand-worked first cycle: today b is under its guarantee by 6 GB, so the
// RM already takes 3 of a's maps (work 10+20+30 s). Cutting a to 20% adds
// 3 more (40+50+60 = 150 s) — over the 60 s budget. Four kills in all
// (marginal 40 s) fit, five (90 s) do not: kills = ceil(3(1+s)) ≤ 4 → s =
// 1/3, a goes 50 → 40. Later cycles go on in bounded steps until a is at
// 20%, each within the budget.
func TestCutWithPreemptionIsSplitIntoBoundedSteps(t *testing.T) {
	w := newCutWorld()
	g := &PreemptionGuard{Config: PreemptionConfig{MaxLostWorkPerCycle: time.Minute}, Models: mapModel(100), ClassKey: "tag"}
	steps := 0
	for cycle := 0; cycle < 20; cycle++ {
		snap := w.snap()
		dec := Decision{Targets: map[string]plan.QueueTarget{
			"root.a": {Capacity: map[string]float64{"": 20}}, "root.b": {Capacity: map[string]float64{"": 80}}}}
		st := g.Guard(snap, w.conf, &dec)
		if st.PredictedLostSeconds > 60+1e-6 {
			t.Fatalf("cycle %d: predicted loss %.1f s over the 60 s budget", cycle, st.PredictedLostSeconds)
		}
		a := dec.Targets["root.a"].Capacity[""]
		b := dec.Targets["root.b"].Capacity[""]
		if math.Abs(a+b-100) > 1e-6 {
			t.Fatalf("cycle %d: capacities %g + %g ≠ 100", cycle, a, b)
		}
		if cycle == 0 {
			if math.Abs(a-40) > 0.01 || st.Scale > 0.34 || st.Scale < 0.33 || !strings.Contains(dec.Targets["root.a"].Reason, "max_lost_work_per_cycle") {
				t.Fatalf("first cycle: a → %g (scale %g), want 40 (1/3 of the cut); reason %q", a, st.Scale, dec.Targets["root.a"].Reason)
			}
		}
		cur := plan.PercentOf(mustTree(t, w.conf).ByPath["root.a"], "")
		if math.Abs(a-cur) > 1e-6 {
			steps++
		}
		w.conf["yarn.scheduler.capacity.root.a.capacity"] = plan.FormatPercent(a)
		w.conf["yarn.scheduler.capacity.root.b.capacity"] = plan.FormatPercent(100 - plan.Round2(a))
		w.rmActs(g, snap)
		if math.Abs(a-20) < 1e-6 {
			break
		}
	}
	if got := plan.PercentOf(mustTree(t, w.conf).ByPath["root.a"], ""); math.Abs(got-20) > 1e-6 || steps < 2 {
		t.Fatalf("after the cycles a is at %g%% in %d steps; want 20%% in ≥2 bounded steps", got, steps)
	}
}

// With preemption off the guard leaves the decision alone; with on_purpose
// and a gain well above the loss it keeps the whole move and says why.
func TestPreemptionOffAndOnPurpose(t *testing.T) {
	w := newCutWorld()
	snap := w.snap()
	for i := range snap.Queues {
		snap.Queues[i].PreemptionDisabled = boolp(true)
	}
	dec := Decision{Targets: map[string]plan.QueueTarget{"root.a": {Capacity: map[string]float64{"": 20}}, "root.b": {Capacity: map[string]float64{"": 80}}}}
	g := &PreemptionGuard{Config: PreemptionConfig{MaxLostWorkPerCycle: time.Minute}, Models: mapModel(100), ClassKey: "tag"}
	if st := g.Guard(snap, w.conf, &dec); st.On || st.Scale != 1 || dec.Targets["root.a"].Capacity[""] != 20 {
		t.Fatalf("preemption off: want the decision untouched, got %+v", st)
	}
	snap = w.snap()
	// Hand-worked: the whole cut adds 3 kills, a's maps at progress 0.4,
	// 0.5, 0.6 of 100 s: 150 s of work lost; killed 15 s after they are
	// selected (max_wait_before_kill), they hand their slots over
	// (60−15)+(50−15)+(40−15) = 105 s sooner than their end, 35 s each on
	// average. ΔΣPS 0.9 × 10 slots × 35 s = 315 slot-s ≥ 2 × 150: the
	// whole move goes through.
	dec = Decision{Targets: map[string]plan.QueueTarget{"root.a": {Capacity: map[string]float64{"": 20}}, "root.b": {Capacity: map[string]float64{"": 80}}},
		SumPS: 0.1, Predicted: map[string]float64{"sum_ps": 1.0}}
	g.Config.OnPurpose, g.Config.GainMargin = true, 2
	st := g.Guard(snap, w.conf, &dec)
	if !st.OnPurpose || st.Scale != 1 || dec.Targets["root.a"].Capacity[""] != 20 || !strings.Contains(dec.Targets["root.a"].Reason, "preemption on purpose") {
		t.Fatalf("on purpose: %+v, a → %g, reason %q", st, dec.Targets["root.a"].Capacity[""], dec.Targets["root.a"].Reason)
	}
	// ΔΣPS 0.2: 0.2 × 10 × 35 = 70 slot-s < 300: preemption buys too
	// little over natural termination; the bound applies.
	dec = Decision{Targets: map[string]plan.QueueTarget{"root.a": {Capacity: map[string]float64{"": 20}}, "root.b": {Capacity: map[string]float64{"": 80}}},
		SumPS: 0.6, Predicted: map[string]float64{"sum_ps": 0.8}}
	if st := g.Guard(snap, w.conf, &dec); st.OnPurpose || st.Scale >= 1 {
		t.Fatalf("small gain: want the bound, got %+v", st)
	}
	// No predicted gain: on purpose does not apply; the bound does.
	dec = Decision{Targets: map[string]plan.QueueTarget{"root.a": {Capacity: map[string]float64{"": 20}}, "root.b": {Capacity: map[string]float64{"": 80}}},
		SumPS: 0.8, Predicted: map[string]float64{"sum_ps": 0.8}}
	if st := g.Guard(snap, w.conf, &dec); st.OnPurpose || st.Scale >= 1 {
		t.Fatalf("no gain: want the bound, got %+v", st)
	}
}

// A queue holding only its AM (1.5 GB < a 2 GB task container) in the
// partition being cut: the RM would kill the AM, and every running task of
// the app goes with it — the whole app's running work is predicted lost.
func TestPredictAMKill(t *testing.T) {
	w := newCutWorld()
	snap := w.snap()
	for i := range snap.Queues {
		if snap.Queues[i].Path == "root.a" {
			snap.Queues[i].ByPartition[""] = cluster.QueueCapacity{Used: cluster.Resource{MemoryMB: 1536}}
		}
	}
	tree := mustTree(t, w.conf)
	g := &PreemptionGuard{Models: mapModel(100), ClassKey: "tag"}
	// a guaranteed 0: its AM's 1.5 GB is over, b waits.
	ls := PredictPreemption(snap, GuaranteesOf(tree, map[string]map[string]float64{"root.a": {"": 0}}, snap), PreemptionDetect(snap, "", nil), g.workDone(snap))
	if len(ls) != 1 || !ls[0].AM || ls[0].Containers != 9 || math.Abs(ls[0].LostSeconds-360) > 1e-6 {
		t.Fatalf("want an AM kill costing a's 8 maps (10+…+80 = 360 s), got %+v", ls)
	}
}

// The floor is lifted outside a queue's home partition only in a cycle
// whose move is preemption on purpose.
func TestRulesLiftFloorOnlyOnPurpose(t *testing.T) {
	snap := cluster.Snapshot{Queues: []cluster.Queue{{Path: "root.b", Name: "b", Leaf: true}}}
	r := plan.SafetyRules{FloorPercent: func(string, string) float64 { return 50 }}
	g := &PreemptionGuard{Config: PreemptionConfig{OnPurpose: true}}
	if f := g.Rules(r, snap, PreemptionStatus{PreemptionState: PreemptionState{On: true}}).FloorPercent("root.b", "n1"); f != 50 {
		t.Fatalf("bounded cycle: floor %g, want 50", f)
	}
	rr := g.Rules(r, snap, PreemptionStatus{PreemptionState: PreemptionState{On: true}, OnPurpose: true})
	if f := rr.FloorPercent("root.b", "n1"); f != 0 {
		t.Fatalf("on purpose, non-home partition: floor %g, want 0", f)
	}
	if f := rr.FloorPercent("root.b", ""); f != 50 {
		t.Fatalf("on purpose, home partition: floor %g, want 50", f)
	}
}

// The guard is a step of the decision, after the guarantee bands and the
// do-no-harm steps (it bounds what will be written) and before the mode
// encoding; on the
// hand-worked first cycle of the cut it keeps 1/3 of the move (a 50 → 40).
func TestPreemptionStepInPipeline(t *testing.T) {
	g := &PreemptionGuard{Config: PreemptionConfig{MaxLostWorkPerCycle: time.Minute}, Models: mapModel(100), ClassKey: "tag"}
	var names []string
	for _, st := range (&PSDecider{Preemption: g}).steps(nil) {
		names = append(names, st.Name())
	}
	order := strings.Join(names, ",")
	if !strings.Contains(order, "guarantee bands,reversal hold,small moves,route slows no class,do no harm,lend only idle,preemption,preemption shield,mode") {
		t.Fatalf("steps %s: want the preemption step between the bands and the mode", order)
	}
	w := newCutWorld()
	s := &decideState{Snap: w.snap(), Live: w.conf, Tree: mustTree(t, w.conf), Slot: cluster.Resource{MemoryMB: 2048, VCores: 1},
		Types: map[string]string{}, Targets: map[string]plan.QueueTarget{
			"root.a": {Capacity: map[string]float64{"": 20}}, "root.b": {Capacity: map[string]float64{"": 80}}}}
	if err := (preemptionStep{Guard: g}).Run(s); err != nil {
		t.Fatal(err)
	}
	if a := s.Targets["root.a"].Capacity[""]; s.Preemption == nil || math.Abs(a-40) > 0.01 || s.Preemption.PredictedLostSeconds > 60+1e-6 {
		t.Fatalf("a → %g, status %+v; want 40 within the 60 s budget", a, s.Preemption)
	}
	s.Preemption = nil
	if err := (preemptionStep{}).Run(s); err != nil || s.Preemption != nil {
		t.Fatalf("no guard: want no status, got %+v %v", s.Preemption, err)
	}
}

// preemptionAtScale is q leaves in one partition, each running apps apps
// of one map each: the even leaves hold twice their guarantee, the odd
// ones half of it and ask for the rest, so every even leaf loses some.
func preemptionAtScale(q, apps int) (cluster.Snapshot, Guarantees) {
	snap := cluster.Snapshot{Partitions: []cluster.Partition{{Name: ""}}}
	g := Guarantees{}
	for i := range q {
		path := "root.q" + strconv.Itoa(i)
		used, pend := int64(4096), int64(0)
		if i%2 == 1 {
			used, pend = 1024, 1024
		}
		snap.Queues = append(snap.Queues, cluster.Queue{Path: path, Name: "q" + strconv.Itoa(i), Leaf: true,
			ByPartition: map[string]cluster.QueueCapacity{"": {Used: cluster.Resource{MemoryMB: used}, Pending: cluster.Resource{MemoryMB: pend}}}})
		g[path] = map[string]float64{"": 2048}
		for j := range apps {
			snap.Apps = append(snap.Apps, cluster.App{ID: path + "/" + strconv.Itoa(j), Queue: path, State: cluster.AppRunning, RunningContainers: 2,
				Job: &cluster.Job{MapsTotal: 1, RunningMaps: []float64{0.5}, ContainerSize: cluster.Resource{MemoryMB: 1024, VCores: 1}}})
		}
	}
	return snap, g
}

// The preemption prediction visits each running app once per partition,
// not once per leaf (issue 19: partitions × leaves × apps): with 4× the
// leaves and so 4× the apps it allocates about 4× as much, never the 16×
// a listing of every app per leaf did. Allocated bytes, not time: the
// machine is shared.
func TestPredictPreemptionLinearInLeavesAndApps(t *testing.T) {
	work := func(a cluster.App) []TaskWork { return []TaskWork{{Done: 50, Left: 50}} }
	st := PreemptionState{On: true}
	alloc := func(q int) (uint64, int) {
		snap, g := preemptionAtScale(q, 4)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		ls := PredictPreemption(snap, g, st, work)
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc, len(ls)
	}
	small, nSmall := alloc(100)
	large, nLarge := alloc(400)
	if nSmall != 50 || nLarge != 200 {
		t.Fatalf("setup: %d and %d leaves lose containers, want 50 and 200", nSmall, nLarge)
	}
	if ratio := float64(large) / float64(small); ratio > 8 {
		t.Fatalf("4× the leaves and apps allocate %.1f× (%d → %d bytes), want about 4×", ratio, small, large)
	}
}

// TestKillLoss: max_wait_before_kill in the loss, hand-worked. The RM
// selects the least advanced first and kills them maxWait later; a task
// whose residual is within the wait ends on its own.
func TestKillLoss(t *testing.T) {
	for _, tc := range []struct {
		name       string
		work       []TaskWork
		selected   int
		maxWait    float64
		killed     int
		lost, held float64
	}{
		{"no wait: every selected task is killed", []TaskWork{{10, 90}, {20, 80}, {30, 70}}, 2, 0, 2, 10 + 20, 90 + 80},
		{"15 s wait, residuals far longer: killed, handed over 15 s later", []TaskWork{{10, 90}, {20, 80}}, 2, 15, 2, 30, 75 + 65},
		// Short maps (10 s): the selected ones at 2 and 8 s done have 8 and
		// 2 s left, both within 15 s: they end before the kill.
		{"short maps end within the wait: no loss", []TaskWork{{2, 8}, {8, 2}, {9, 1}}, 2, 15, 0, 0, 0},
		// Only the first is killed: 5 s lost, handed over 40−15 = 25 s sooner;
		// the second (12 s left) ends on its own.
		{"mixed", []TaskWork{{5, 40}, {30, 12}}, 2, 15, 1, 5, 25},
		{"residual exactly the wait ends on its own", []TaskWork{{45, 15}}, 1, 15, 0, 0, 0},
		// Left 0 is unknown (no model) or overdue: counted as killed.
		{"unknown residual: killed, the safe side", []TaskWork{{600, 0}}, 1, 15, 1, 600, 0},
		{"more selected than known tasks: the rest lose nothing known", []TaskWork{{10, 90}}, 3, 15, 3, 10, 75},
		{"nothing selected", []TaskWork{{10, 90}}, 0, 15, 0, 0, 0},
	} {
		k, l, h := killLoss(tc.work, tc.selected, tc.maxWait)
		if k != tc.killed || math.Abs(l-tc.lost) > 1e-9 || math.Abs(h-tc.held) > 1e-9 {
			t.Errorf("%s: killed %d lost %g held %g; want %d, %g, %g", tc.name, k, l, h, tc.killed, tc.lost, tc.held)
		}
	}
}

// max_wait_before_kill comes from yarn-site, else the policy's 15 s.
func TestPreemptionDetectMaxWait(t *testing.T) {
	snap := cluster.Snapshot{Queues: []cluster.Queue{{Path: "root.a", Leaf: true, PreemptionDisabled: boolp(false)}}}
	if st := PreemptionDetect(snap, "", nil); st.MaxWaitBeforeKill != 15*time.Second {
		t.Errorf("default: %s", st.MaxWaitBeforeKill)
	}
	if st := PreemptionDetect(snap, "", map[string]string{maxWaitBeforeKillKey: "5000"}); st.MaxWaitBeforeKill != 5*time.Second {
		t.Errorf("yarn-site 5000 ms: %s", st.MaxWaitBeforeKill)
	}
	if st := PreemptionDetect(snap, "", map[string]string{maxWaitBeforeKillKey: "soon"}); st.MaxWaitBeforeKill != 15*time.Second {
		t.Errorf("unparsable: %s", st.MaxWaitBeforeKill)
	}
}

// PredictPreemption counts max_wait_before_kill: cutting a to 20% on the
// cut world selects 3 more of a's maps; with a 100 s map they have 60, 50
// and 40 s left and are killed (150 s lost). With 55 s maps at the same
// progress they have 33, 27.5 and 22 s left: within a 30 s wait only the
// first is killed (0.4 × 55 = 22 s lost).
func TestPredictPreemptionMaxWait(t *testing.T) {
	w := newCutWorld()
	snap := w.snap()
	tree := mustTree(t, w.conf)
	cut := GuaranteesOf(tree, map[string]map[string]float64{"root.a": {"": 20}, "root.b": {"": 80}}, snap)
	base := GuaranteesOf(tree, nil, snap)
	st := PreemptionDetect(snap, "", map[string]string{maxWaitBeforeKillKey: "30000"})
	for _, tc := range []struct {
		mean        float64
		kills       int
		lost        float64
		description string
	}{
		{100, 3, 40 + 50 + 60, "100 s maps: all three killed"},
		{55, 1, 0.4 * 55, "55 s maps: two end within the 30 s wait"},
	} {
		g := &PreemptionGuard{Models: mapModel(tc.mean), ClassKey: "tag"}
		k0, l0 := TotalLoss(PredictPreemption(snap, base, st, g.workDone(snap)))
		k1, l1 := TotalLoss(PredictPreemption(snap, cut, st, g.workDone(snap)))
		if k1-k0 != tc.kills || math.Abs((l1-l0)-tc.lost) > 1e-6 {
			t.Errorf("%s: marginal %d kills, %.2f s lost; want %d, %.2f", tc.description, k1-k0, l1-l0, tc.kills, tc.lost)
		}
	}
}
