package sim

import (
	"math"
	"testing"
	"time"
)

// MinWork by hand: class c of the small cluster (map 60 s a block, shuffle
// 5 s, reduce 5 s, 2× on gpu), noise 0, 128 MB blocks, node-local reads at
// the default 400 MB/s (0.32 s a block).
func TestMinWork(t *testing.T) {
	c := small(t, false, "", "  - {at: 0s, name: A, class: c, queue: a, maps: 1, reduces: 0}\n")
	sc := *c.sc
	sc.NoiseSigma = 0
	half := int64(64 << 20)
	full := int64(128 << 20)
	cases := []struct {
		name    string
		gpus    int64 // the class's GPUs per map
		memMB   int64
		maps    []int64
		reduces int
		want    float64
	}{
		// Fastest type gpu (2×): 2·(60/2 + 0.32) + (5 + 5/2).
		{"two blocks and a reduce on gpu", 0, 2048, []int64{full, full}, 1, 2*(30+0.32) + 7.5},
		// Half a block: half the processing and half the read.
		{"half block, no reduce", 0, 2048, []int64{half}, 0, 15 + 0.16},
		// A container no node holds: no minimum.
		{"too big for any node", 0, 16384, []int64{full}, 1, 0},
		// Needs 4 GPUs, the gpu nodes have 2: no minimum.
		{"more GPUs than any node", 4, 2048, []int64{full}, 0, 0},
	}
	for _, tc := range cases {
		s := sc
		s.Classes = append([]ClassSpec(nil), sc.Classes...)
		s.Classes[0].MapGPUs, s.Classes[0].MapMemoryMB = tc.gpus, tc.memMB
		if got := s.MinWork("c", tc.maps, tc.reduces, 0); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s: MinWork = %v, want %v", tc.name, got, tc.want)
		}
	}
	// With noise σ the minimum is the mean, × exp(σ²/2).
	sc.NoiseSigma = 0.2
	if got, want := sc.MinWork("c", []int64{full}, 0, 0), 30*math.Exp(0.02)+0.32; math.Abs(got-want) > 1e-9 {
		t.Errorf("noisy MinWork = %v, want %v", got, want)
	}
}

// taskUse by hand: a map that ran 0–30 s, a killed attempt 0–10 s, and a
// map still running from 20 s, observed at 50 s: 30 + 10 + 30 used, 10
// of them wasted.
func TestTaskUse(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(sec int) time.Time { return t0.Add(time.Duration(sec) * time.Second) }
	a := &app{maps: []*task{
		{attempts: []*attempt{{state: "KILLED", start: at(0), finish: at(10)}, {state: "SUCCEEDED", start: at(0), finish: at(30)}}},
		{attempts: []*attempt{{state: "RUNNING", start: at(20)}}},
	}}
	used, wasted := taskUse(a, at(50))
	if used != 70 || wasted != 10 {
		t.Errorf("taskUse = %v used, %v wasted; want 70, 10", used, wasted)
	}
}

// End to end: noise 0, one node type, every block on both nodes (three
// replicas, two DataNodes), no reduces. B never loses a container, so it
// uses exactly its minimum (4 maps × 200 s + reads); A's preempted maps
// re-run, so A used its minimum plus the killed attempts' time.
func TestJobResultWork(t *testing.T) {
	c := preemptCluster(t, `  yarn.resourcemanager.scheduler.monitor.enable: "true"
  yarn.resourcemanager.monitor.capacity.preemption.monitoring_interval: "3000"
  yarn.resourcemanager.monitor.capacity.preemption.max_wait_before_kill: "10000"
`, "")
	if !c.RunUntilDone(2 * time.Hour) {
		t.Fatal("jobs did not finish")
	}
	byName := map[string]JobResult{}
	for _, r := range c.Results() {
		byName[r.Name] = r
	}
	read := 128.0 / 400 // a block at the default node-local 400 MB/s
	a, b := byName["A"], byName["B"]
	if want := 4 * (200 + read); math.Abs(b.MinTaskSeconds-want) > 1e-6 || math.Abs(b.TaskSeconds-want) > 1e-3 || b.WastedSeconds != 0 {
		t.Errorf("B: used %v, wasted %v, minimum %v; want %v, 0, %v", b.TaskSeconds, b.WastedSeconds, b.MinTaskSeconds, want, want)
	}
	// One node type, no reduces: the maps' split by type is the whole job.
	for _, r := range []JobResult{a, b} {
		if len(r.MapUse) != 1 {
			t.Fatalf("%s: map use on %d node types, want 1: %v", r.Name, len(r.MapUse), r.MapUse)
		}
		for typ, u := range r.MapUse {
			if math.Abs(u.Seconds-r.TaskSeconds) > 1e-6 || math.Abs(u.Least-r.MinTaskSeconds) > 1e-6 {
				t.Errorf("%s: maps on %s used %v, least %v; want the job's %v, %v", r.Name, typ, u.Seconds, u.Least, r.TaskSeconds, r.MinTaskSeconds)
			}
		}
		if got := r.MapProc + r.MapRead; math.Abs(got-r.MinTaskSeconds) > 1e-6 {
			t.Errorf("%s: maps' work at speed 1 %v + reads %v = %v, want the minimum %v", r.Name, r.MapProc, r.MapRead, got, r.MinTaskSeconds)
		}
	}
	// A's first wave starts at once (within EarlyWindow of its
	// submission), its later waves only as the first ones finish (200 s):
	// the early part is the first wave's maps, counted from the attempts.
	var early int
	for _, tk := range c.apps[0].maps {
		if len(tk.attempts) > 0 && tk.attempts[0].start.Sub(c.apps[0].submit) <= EarlyWindow {
			early++
		}
	}
	if early == 0 || early == len(c.apps[0].maps) {
		t.Fatalf("A: %d of %d maps started within %s of submission; want some, not all", early, len(c.apps[0].maps), EarlyWindow)
	}
	for _, u := range a.MapUse {
		if want := float64(early) * (200 + read); math.Abs(u.EarlyLeast-want) > 1e-6 {
			t.Errorf("A: early maps' least %v, want %d × %v = %v", u.EarlyLeast, early, 200+read, want)
		}
		if u.Early < u.EarlyLeast-1e-6 || u.Early >= u.Seconds {
			t.Errorf("A: early maps used %v of %v (their least %v); want at least their least, less than all", u.Early, u.Seconds, u.EarlyLeast)
		}
	}
	if a.WastedSeconds <= 0 {
		t.Fatalf("A: no killed attempt counted (preemption on): %+v", a)
	}
	var killed float64
	for _, at := range killedAttempts(c, 1) {
		killed += at.finish.Sub(at.start).Seconds()
	}
	if math.Abs(a.WastedSeconds-killed) > 1e-6 {
		t.Errorf("A: wasted %v, killed attempts ran %v", a.WastedSeconds, killed)
	}
	if want := 40 * (200 + read); math.Abs(a.MinTaskSeconds-want) > 1e-6 || math.Abs(a.TaskSeconds-a.WastedSeconds-want) > 1e-3 {
		t.Errorf("A: used %v less wasted %v, minimum %v; want both %v", a.TaskSeconds, a.WastedSeconds, a.MinTaskSeconds, want)
	}
}
