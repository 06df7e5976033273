package sim

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

func TestParsePreemptionConf(t *testing.T) {
	pc, err := ParsePreemptionConf(nil)
	if err != nil || pc.Enabled || pc.Interval != 3*time.Second || pc.MaxWait != 15*time.Second || pc.PerRound != 0.1 || pc.MaxIgnored != 0.1 || pc.Natural != 0.2 {
		t.Fatalf("defaults: %+v %v", pc, err)
	}
	pc, err = ParsePreemptionConf(map[string]string{PreemptionEnable: "true", PreemptionInterval: "1000", PreemptionMaxWait: "5000",
		PreemptionPerRound: "0.5", PreemptionMaxIgnored: "0", PreemptionNatural: "1"})
	if err != nil || !pc.Enabled || pc.Interval != time.Second || pc.MaxWait != 5*time.Second || pc.PerRound != 0.5 || pc.MaxIgnored != 0 || pc.Natural != 1 {
		t.Fatalf("set: %+v %v", pc, err)
	}
	for key, v := range map[string]string{PreemptionEnable: "yes", PreemptionInterval: "-3", PreemptionPerRound: "1.5", PreemptionNatural: "x"} {
		if _, err := ParsePreemptionConf(map[string]string{key: v}); err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("%s=%s: want an error naming the key, got %v", key, v, err)
		}
	}
}

// Hand-worked: a partition of 100 (GB), queues a and b guaranteed 50 each.
// a uses 90, b uses 10 and asks for 40 more. Water-filling gives each 50
// (b wants exactly 50, a is capped by the share), so a must give back 40.
func TestIdealAndResToObtain(t *testing.T) {
	mk := func() []*pqueue {
		return []*pqueue{{path: "a", guaranteed: 50, max: 100, used: 90}, {path: "b", guaranteed: 50, max: 100, used: 10, pending: 40}}
	}
	cases := []struct {
		name       string
		pc         PreemptionConf
		edit       func([]*pqueue)
		toBe, want float64 // a's toBePreempted and resToObtain
	}{
		// total_preemption_per_round 0.1 × 100 = 10 caps the round; × 0.2 natural termination = 2.
		{"defaults", PreemptionConf{PerRound: 0.1, MaxIgnored: 0.1, Natural: 0.2}, nil, 10, 2},
		// No round cap: 40 × 0.2 = 8.
		{"per round 1", PreemptionConf{PerRound: 1, MaxIgnored: 0.1, Natural: 0.2}, nil, 40, 8},
		// Natural termination 1: the whole gap in one round.
		{"natural 1", PreemptionConf{PerRound: 1, MaxIgnored: 0.1, Natural: 1}, nil, 40, 40},
		// a uses 54 ≤ 50 × 1.1: within max_ignored_over_capacity, nothing taken (b's 46 fits anyway: ideal a = 54? no: b wants 46+... see below).
		{"within ignored", PreemptionConf{PerRound: 1, MaxIgnored: 0.1, Natural: 1}, func(q []*pqueue) { q[0].used = 54; q[1].pending = 46 }, 4, 0},
		// Same with max_ignored 0: the 4 over the ideal are taken.
		{"ignored 0", PreemptionConf{PerRound: 1, MaxIgnored: 0, Natural: 1}, func(q []*pqueue) { q[0].used = 54; q[1].pending = 46 }, 4, 4},
		// disable_preemption on a: nothing.
		{"disabled", PreemptionConf{PerRound: 1, MaxIgnored: 0.1, Natural: 1}, func(q []*pqueue) { q[0].disabled = true }, 0, 0},
		// b wants only 20 in all: a's ideal is 80, so 10 to give back.
		{"small demand", PreemptionConf{PerRound: 1, MaxIgnored: 0.1, Natural: 1}, func(q []*pqueue) { q[1].pending = 10 }, 10, 10},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			qs := mk()
			if tc.edit != nil {
				tc.edit(qs)
			}
			WaterFill(100, qs)
			ResToObtain(qs, 100, tc.pc)
			if math.Abs(qs[0].toBePreempted-tc.toBe) > 1e-9 || math.Abs(qs[0].resToObtain-tc.want) > 1e-9 {
				t.Fatalf("a: toBePreempted %g resToObtain %g, want %g %g (ideal a=%g b=%g)", qs[0].toBePreempted, qs[0].resToObtain, tc.toBe, tc.want, qs[0].ideal, qs[1].ideal)
			}
			if qs[1].resToObtain != 0 {
				t.Fatalf("b is under its guarantee, nothing to take, got %g", qs[1].resToObtain)
			}
		})
	}
}

// Three queues 20/30/50: c wants nothing, so its 50 is shared by a and b
// in proportion to their guarantees (2:3), capped by what they want.
func TestWaterFillRedistributes(t *testing.T) {
	qs := []*pqueue{{guaranteed: 20, max: 100, used: 0, pending: 100}, {guaranteed: 30, max: 100, used: 0, pending: 100}, {guaranteed: 50, max: 100}}
	WaterFill(100, qs)
	if math.Abs(qs[0].ideal-40) > 1e-6 || math.Abs(qs[1].ideal-60) > 1e-6 || qs[2].ideal != 0 {
		t.Fatalf("ideal %g %g %g, want 40 60 0", qs[0].ideal, qs[1].ideal, qs[2].ideal)
	}
	qs = []*pqueue{{guaranteed: 20, max: 30, pending: 100}, {guaranteed: 30, max: 100, pending: 100}, {guaranteed: 50, max: 100}}
	WaterFill(100, qs)
	if math.Abs(qs[0].ideal-30) > 1e-6 || math.Abs(qs[1].ideal-70) > 1e-6 {
		t.Fatalf("maximum-capacity caps a at 30: got %g %g", qs[0].ideal, qs[1].ideal)
	}
}

// preemptCluster: two nodes of 8 GB; queues a and b at 50% each (maximum
// 100%); job A (40 maps of 1 GB, 200 s) fills the cluster at 0 s, job B
// (4 maps) arrives in b at 60 s. Preemption per the yarn_site given.
func preemptCluster(t *testing.T, site, extraConf string) *Cluster {
	t.Helper()
	y := `name: preempt
seed: 1
noise_sigma: 0
racks: 1
node_types:
  - {name: cpu, count: 2, memory_mb: 8192, vcores: 8}
classes:
  - {name: c, map_seconds: 200, shuffle_seconds: 5, reduce_seconds: 5, map_memory_mb: 1024}
conf:
  yarn.scheduler.capacity.maximum-am-resource-percent: "1.0"
  yarn.scheduler.capacity.node-locality-delay: "0"
  yarn.scheduler.capacity.root.queues: a,b
  yarn.scheduler.capacity.root.a.capacity: "50"
  yarn.scheduler.capacity.root.a.maximum-capacity: "100"
  yarn.scheduler.capacity.root.b.capacity: "50"
  yarn.scheduler.capacity.root.b.maximum-capacity: "100"
` + extraConf + `yarn_site:
` + site + `jobs:
  - {at: 0s, name: A, class: c, queue: a, maps: 40, reduces: 0}
  - {at: 60s, name: B, class: c, queue: b, maps: 4, reduces: 0}
`
	sc, err := ParseScenario([]byte(y), "preempt.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewCluster(sc, 1)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func killedAttempts(c *Cluster, appSeq int) []*attempt {
	var out []*attempt
	for _, t := range c.apps[appSeq-1].maps {
		for _, at := range t.attempts {
			if at.state == "KILLED" {
				out = append(out, at)
			}
		}
	}
	return out
}

func TestPreemptionMaxWaitAndWorkLost(t *testing.T) {
	// Rounds every 3 s (3, 6, ..., 60, 63, ...): B's AM request is seen at
	// the 60 s round, the newest map of A is selected then and killed at
	// the first round at least 10 s later: 72 s (hand-worked from the knobs).
	c := preemptCluster(t, `  yarn.resourcemanager.scheduler.monitor.enable: "true"
  yarn.resourcemanager.monitor.capacity.preemption.monitoring_interval: "3000"
  yarn.resourcemanager.monitor.capacity.preemption.max_wait_before_kill: "10000"
`, "")
	c.RunUntil(c.start.Add(71 * time.Second))
	if k := killedAttempts(c, 1); len(k) != 0 {
		t.Fatalf("killed before max_wait_before_kill: %d", len(k))
	}
	c.RunUntil(c.start.Add(72 * time.Second))
	k := killedAttempts(c, 1)
	if len(k) != 1 || !k[0].finish.Equal(c.start.Add(72*time.Second)) || k[0].diag != PreemptedDiagnostics {
		t.Fatalf("want one kill at 72 s with %q, got %d", PreemptedDiagnostics, len(k))
	}
	// The newest container goes first: none of A's still-running maps started after it.
	for _, tk := range c.apps[0].maps {
		for _, at := range tk.attempts {
			if at.state == "RUNNING" && at.start.After(k[0].start) {
				t.Fatalf("killed a map started at %s while one started at %s runs", k[0].start, at.start)
			}
		}
	}
	if !c.RunUntilDone(2 * time.Hour) {
		t.Fatal("jobs did not finish")
	}
	a := c.apps[0]
	if a.preempted.NonAM == 0 || a.preempted.AM != 0 || a.preempted.MemoryMB != int64(a.preempted.NonAM)*1024 || a.preempted.MemSeconds <= 0 {
		t.Fatalf("app preempted fields: %+v", a.preempted)
	}
	succeeded := 0
	for _, tk := range a.maps {
		for _, at := range tk.attempts {
			if at.state == "SUCCEEDED" {
				succeeded++
			}
		}
	}
	if succeeded != 40 {
		t.Fatalf("every preempted map re-runs and succeeds once: %d of 40", succeeded)
	}
	n, lost := c.PreemptionStats()
	if n != a.preempted.NonAM || lost <= 0 || math.Abs(lost*1024-a.preempted.MemSeconds) > 1 {
		t.Fatalf("stats %d %g vs app %+v", n, lost, a.preempted)
	}
	// The event log has every kill, the first at 72 s, and sums to the stats.
	ev := c.PreemptionEvents()
	sum := 0.0
	for _, e := range ev {
		sum += e.Lost
		if e.Queue != a.queue || e.AM || e.QueueUsedMB <= e.QueueGuaranteeMB {
			t.Fatalf("event %+v: want a task kill in %s while it held more than its guarantee", e, a.queue)
		}
	}
	if len(ev) != n || !ev[0].At.Equal(c.start.Add(72*time.Second)) || math.Abs(sum-lost) > 1e-6 {
		t.Fatalf("%d events (first at %s), %.1f s lost; stats say %d, %.1f s", len(ev), ev[0].At.Sub(c.start), sum, n, lost)
	}
}

// b reaches its guarantee (8 GB: its AM and 6 maps would be 7.5 GB, but B
// has only 4 maps: AM + 4 GB) with preemption; without it B waits for A's
// maps to end at about 200 s.
func TestPreemptionGivesTheGuarantee(t *testing.T) {
	run := func(site string) time.Duration {
		c := preemptCluster(t, site, "")
		for c.now.Before(c.start.Add(10 * time.Minute)) {
			c.Step(time.Second)
			if u := c.usage["root.b"][""].MemoryMB; u >= 1536+4*1024 {
				return c.now.Sub(c.start)
			}
		}
		return time.Hour
	}
	on := run(`  yarn.resourcemanager.scheduler.monitor.enable: "true"
  yarn.resourcemanager.monitor.capacity.preemption.natural_termination_factor: "1"
  yarn.resourcemanager.monitor.capacity.preemption.total_preemption_per_round: "1"
`)
	off := run("  yarn.resourcemanager.scheduler.monitor.enable: \"false\"\n")
	if on > 120*time.Second || off < 200*time.Second {
		t.Fatalf("b at full demand after %s with preemption (want ≤ 120 s), %s without (want ≥ 200 s)", on, off)
	}
}

func TestDisablePreemptionQueue(t *testing.T) {
	c := preemptCluster(t, `  yarn.resourcemanager.scheduler.monitor.enable: "true"
`, `  yarn.scheduler.capacity.root.a.disable_preemption: "true"
`)
	c.RunUntil(c.start.Add(5 * time.Minute))
	if k := killedAttempts(c, 1); len(k) != 0 {
		t.Fatalf("queue a disables preemption, %d of its attempts killed", len(k))
	}
	if !c.PreemptionDisabled("root.a") || c.PreemptionDisabled("root.b") {
		t.Fatal("preemptionDisabled: want a true, b false")
	}
}

// With natural_termination_factor 0.2 and 1 GB containers each round
// selects one container (a container is taken whole): kills come one at a
// time, max_wait apart, rather than all at once.
func TestNaturalTerminationPacesKills(t *testing.T) {
	c := preemptCluster(t, `  yarn.resourcemanager.scheduler.monitor.enable: "true"
  yarn.resourcemanager.monitor.capacity.preemption.max_wait_before_kill: "10000"
`, "")
	c.RunUntil(c.start.Add(100 * time.Second))
	times := map[time.Time]int{}
	for _, at := range killedAttempts(c, 1) {
		times[at.finish]++
	}
	for at, n := range times {
		if n > 1 {
			t.Fatalf("%d kills at %s: natural termination 0.2 of a 1-3 GB gap selects one container per round", n, at)
		}
	}
	if len(times) < 2 {
		t.Fatalf("want several paced kills by 100 s, got %d", len(times))
	}
}

// The RM REST carries the preempted fields and the queue's
// preemptionDisabled; JobHistory the attempt's diagnostics.
func TestPreemptionInREST(t *testing.T) {
	c := preemptCluster(t, `  yarn.resourcemanager.scheduler.monitor.enable: "true"
  yarn.resourcemanager.monitor.capacity.preemption.max_wait_before_kill: "10000"
`, "")
	c.RunUntil(c.start.Add(80 * time.Second))
	srv := httptest.NewServer(c.Handler())
	defer srv.Close()
	get := func(path string) string {
		resp, err := srv.Client().Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	var apps struct {
		Apps struct {
			App []map[string]any `json:"app"`
		} `json:"apps"`
	}
	if err := json.Unmarshal([]byte(get("/ws/v1/cluster/apps")), &apps); err != nil {
		t.Fatal(err)
	}
	a := apps.Apps.App[0]
	for _, f := range []string{"preemptedResourceMB", "preemptedResourceVCores", "numNonAMContainerPreempted", "preemptedMemorySeconds", "preemptedVcoreSeconds"} {
		if v, _ := a[f].(float64); v <= 0 {
			t.Errorf("%s = %v, want > 0", f, a[f])
		}
	}
	// Every preemption field a real 3.3.6 RM shows (recorded) is there.
	rec, err := os.ReadFile("testdata/rm_apps_running_during_preemption.json")
	if err != nil {
		t.Fatal(err)
	}
	var real struct {
		Apps struct {
			App []map[string]any `json:"app"`
		} `json:"apps"`
	}
	if err := json.Unmarshal(rec, &real); err != nil {
		t.Fatal(err)
	}
	for k := range real.Apps.App[0] {
		if strings.Contains(strings.ToLower(k), "preempted") {
			if _, ok := a[k]; !ok {
				t.Errorf("field %s (in the recorded RM answer) is missing", k)
			}
		}
	}
	if s := get("/ws/v1/cluster/scheduler"); !strings.Contains(s, `"preemptionDisabled":false`) {
		t.Error("scheduler: want preemptionDisabled false for queues with preemption on")
	}
	k := killedAttempts(c, 1)[0]
	taskID := strings.TrimSuffix(strings.Replace(c.attemptID(k), "attempt_", "task_", 1), fmt.Sprintf("_%d", k.n))
	body := get("/proxy/" + c.apps[0].id + "/ws/v1/mapreduce/jobs/" + c.apps[0].jobID + "/tasks/" + taskID + "/attempts")
	if !strings.Contains(body, `"state":"KILLED"`) || !strings.Contains(body, PreemptedDiagnostics) {
		t.Fatalf("JobHistory attempts: want KILLED with %q, got %s", PreemptedDiagnostics, body)
	}
}

// A job on one fast and one very slow node: its last maps on the slow node
// straggle, the speculator gives them a second attempt on the fast node,
// (or, when a slow-node slot frees first, the slow node again), and the
// loser is KILLED with "Speculation: <winner> succeeded first!".
// Every map ends with exactly one SUCCEEDED attempt, whichever its number.
func TestSpeculationKillsTheLoser(t *testing.T) {
	run := func(spec string) (*Cluster, time.Duration) {
		y := `name: spec
seed: 1
noise_sigma: 0
racks: 1
node_types:
  - {name: fast, count: 1, memory_mb: 8192, vcores: 8}
  - {name: slow, count: 1, memory_mb: 8192, vcores: 8}
classes:
  - {name: c, map_seconds: 30, shuffle_seconds: 5, reduce_seconds: 5, map_memory_mb: 2048, speed: {slow: 0.1}}
conf:
  yarn.scheduler.capacity.maximum-am-resource-percent: "1.0"
  yarn.scheduler.capacity.node-locality-delay: "0"
  yarn.scheduler.capacity.root.queues: default
  yarn.scheduler.capacity.root.default.capacity: "100"
mapred_site:
  mapreduce.map.speculative: "` + spec + `"
jobs:
  - {at: 0s, name: J, class: c, queue: default, maps: 12, reduces: 0}
`
		sc, err := ParseScenario([]byte(y), "spec.yaml")
		if err != nil {
			t.Fatal(err)
		}
		c, err := NewCluster(sc, 1)
		if err != nil {
			t.Fatal(err)
		}
		if !c.RunUntilDone(time.Hour) {
			t.Fatal("did not finish")
		}
		return c, c.Results()[0].Duration()
	}
	c, with := run("true")
	_, without := run("false")
	started, killed, lost := c.SpeculationStats()
	if started == 0 || killed == 0 || lost <= 0 {
		t.Fatalf("speculation: %d started, %d killed, %g s lost", started, killed, lost)
	}
	sawLoser := false
	for _, tk := range c.apps[0].maps {
		ok := 0
		for _, at := range tk.attempts {
			switch at.state {
			case "SUCCEEDED":
				ok++
			case "KILLED":
				if !strings.HasPrefix(at.diag, "Speculation: attempt_") || !strings.HasSuffix(at.diag, " succeeded first!") {
					t.Fatalf("loser diagnostics %q", at.diag)
				}
				sawLoser = true
			}
		}
		if ok != 1 {
			t.Fatalf("task %d: %d SUCCEEDED attempts", tk.idx, ok)
		}
	}
	// A speculative attempt may land on the slow node again (a freed slot
	// there): the job is never slower, not always faster.
	if !sawLoser || with > without {
		t.Fatalf("speculation must not slow the job: %s with, %s without (loser seen: %v)", with, without, sawLoser)
	}
}

// total_preemption_per_round also caps what one round may select of the
// whole cluster: at 0.05 × 16 GB = 819 MB not even one 1 GB map fits, so
// nothing is ever preempted (Hadoop's fitsIn check on the round's allowance).
func TestPerRoundAllowanceTooSmallForAContainer(t *testing.T) {
	c := preemptCluster(t, `  yarn.resourcemanager.scheduler.monitor.enable: "true"
  yarn.resourcemanager.monitor.capacity.preemption.total_preemption_per_round: "0.05"
`, "")
	c.RunUntil(c.start.Add(5 * time.Minute))
	if n, _ := c.PreemptionStats(); n != 0 {
		t.Fatalf("%d containers preempted; none fits in the round's 819 MB", n)
	}
	c = preemptCluster(t, `  yarn.resourcemanager.scheduler.monitor.enable: "true"
  yarn.resourcemanager.monitor.capacity.preemption.total_preemption_per_round: "0.07"
`, "")
	c.RunUntil(c.start.Add(5 * time.Minute))
	if n, _ := c.PreemptionStats(); n == 0 {
		t.Fatal("0.07 × 16 GB = 1147 MB: one 1 GB map per round fits, yet none was preempted")
	}
}

func TestParseSpeculationConf(t *testing.T) {
	sc, err := ParseSpeculationConf(nil)
	if err != nil || sc.Maps || sc.Interval != time.Second || sc.AfterSpeculate != 15*time.Second || sc.CapRunning != 0.1 || sc.CapTotal != 0.01 || sc.MinimumAllowed != 10 {
		t.Fatalf("defaults: %+v %v", sc, err)
	}
	for key, v := range map[string]string{"mapreduce.map.speculative": "sometimes", specPrefix + "retry-after-speculate": "0",
		specPrefix + "speculative-cap-running-tasks": "2", specPrefix + "minimum-allowed-tasks": "-1"} {
		if _, err := ParseSpeculationConf(map[string]string{key: v}); err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("%s=%s: want an error naming the key, got %v", key, v, err)
		}
	}
}

// The marks follow ProportionalCapacityPreemptionPolicy's bookkeeping
// (max_wait_before_kill 10 s): a container marked once keeps its mark
// through rounds that do not select it (a shield set after the mark, the
// owner's demand met for a while), so when it is selected again 10 s or
// more after its first mark it is killed at once; marks are forgotten 2 ×
// 10 s after they were made, and a container selected after that starts
// a new wait.
func TestPreemptionMarksOutliveUnselectedRounds(t *testing.T) {
	c := &Cluster{preempt: &preemptor{conf: PreemptionConf{MaxWait: 10 * time.Second}, marked: map[*attempt]time.Time{}, amMarked: map[*app]time.Time{}}}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	x, y := &attempt{state: "RUNNING"}, &attempt{state: "RUNNING"}
	round := func(at time.Duration, sel ...*attempt) []*attempt {
		selected := map[*attempt]bool{}
		for _, s := range sel {
			selected[s] = true
		}
		now := t0.Add(at)
		kill := overdue(c.preempt.marked, selected, now, c.preempt.conf.MaxWait)
		for _, k := range kill {
			delete(c.preempt.marked, k)
		}
		c.forgetStaleMarks(now)
		return kill
	}
	steps := []struct {
		at   time.Duration
		sel  []*attempt
		kill []*attempt
	}{
		{0, []*attempt{x, y}, nil},                       // both marked at 0 s
		{3 * time.Second, nil, nil},                      // shielded: nothing selected, marks kept
		{6 * time.Second, nil, nil},                      //
		{12 * time.Second, []*attempt{x}, []*attempt{x}}, // x selected again, marked 12 s ago: killed at once
		{21 * time.Second, nil, nil},                     // y's mark (0 s) is now older than 20 s: forgotten
		{24 * time.Second, []*attempt{y}, nil},           // y selected: a new mark, a new wait
		{33 * time.Second, []*attempt{y}, nil},           // 9 s: not yet
		{36 * time.Second, []*attempt{y}, []*attempt{y}}, // 12 s: killed
	}
	for _, st := range steps {
		got := round(st.at, st.sel...)
		if len(got) != len(st.kill) || len(got) == 1 && got[0] != st.kill[0] {
			t.Fatalf("round at %s: killed %d containers, want %d", st.at, len(got), len(st.kill))
		}
	}
}

// A shield that comes late shows as kills (issue 37). B's demand appears
// at 60 s; with a 3 s monitor and 10 s max_wait_before_kill the RM marks
// A's newest map at 60 s and kills it at 72 s. disable_preemption=true on
// a written at 65 s (after the mark, before the kill) keeps every map of
// A; written at 75 s it comes after the first kill.
func TestLateShieldShowsAsKills(t *testing.T) {
	site := `  yarn.resourcemanager.scheduler.monitor.enable: "true"
  yarn.resourcemanager.monitor.capacity.preemption.monitoring_interval: "3000"
  yarn.resourcemanager.monitor.capacity.preemption.max_wait_before_kill: "10000"
`
	run := func(shieldAt time.Duration) (kills int, first time.Duration) {
		c := preemptCluster(t, site, "")
		c.RunUntil(c.start.Add(shieldAt))
		m := schedconf.Mutation{UpdateQueue: []schedconf.QueueUpdate{{Queue: "root.a", Params: map[string]string{"disable_preemption": "true"}}}}
		if _, err := c.MutateConf(m, false); err != nil {
			t.Fatal(err)
		}
		c.RunUntil(c.start.Add(5 * time.Minute))
		for _, e := range c.PreemptionEvents() {
			if e.Queue == "root.a" {
				if kills == 0 {
					first = e.At.Sub(c.start)
				}
				kills++
			}
		}
		return kills, first
	}
	if n, _ := run(65 * time.Second); n != 0 {
		t.Errorf("shield at 65 s, before the kill max_wait_before_kill after the 60 s mark: %d of a's containers killed, want 0", n)
	}
	if n, first := run(75 * time.Second); n == 0 || first != 72*time.Second {
		t.Errorf("shield at 75 s: want a kill at 72 s before it, got %d kills, first at %s", n, first)
	}
}
