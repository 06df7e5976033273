package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/learn"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// sampleStatus is a small status with every section filled, for tests:
// two cycles of two queues in two partitions, one job with a deadline, one
// applied plan that moved crypto's home to gpu.
func sampleStatus() sidecar.Status {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	dl := t0.Add(90 * time.Minute)
	p50, p90, pm := t0.Add(60*time.Minute), t0.Add(80*time.Minute), 0.93
	admin50, admin25 := 50.0, 25.0
	on := false
	qpts := func(cryptoGPU float64) []sidecar.QueuePoint {
		return []sidecar.QueuePoint{
			{Queue: "root.crypto", Partition: "", Capacity: 50, AbsCapacity: 50, AbsUsed: 20},
			{Queue: "root.crypto", Partition: "gpu", Capacity: cryptoGPU, AbsCapacity: cryptoGPU, AbsUsed: 60},
			{Queue: "root.sort", Partition: "", Capacity: 50, AbsCapacity: 50, AbsUsed: 40},
			{Queue: "root.sort", Partition: "gpu", Capacity: 100 - cryptoGPU, AbsCapacity: 100 - cryptoGPU, AbsUsed: 10},
		}
	}
	return sidecar.Status{
		Time: t0.Add(30 * time.Second), RM: "http://rm:8088", Mode: act.ModeApply, SumPS: 1.25, MinPS: 0.6, BoundPS: 1.27,
		Overview: sidecar.Overview{Cycle: 2, RMVersion: "3.3.6", ValidationPath: "local-only", PreemptionEnabled: &on,
			Warnings:  []string{"part of the snapshot could not be read: app application_1_0002 tasks (timeout)"},
			Admin:     map[string]float64{"root.crypto|": 50, "root.crypto|gpu": 25, "root.sort|": 50, "root.sort|gpu": 75},
			Mutations: []sidecar.HourCount{{Hour: t0, Count: 1}}},
		Jobs: []sidecar.JobStatus{{AppID: "application_1_0001", Name: "crypto-1", Queue: "root.crypto", Class: "crypto", PS: 0.6, FairShare: 0.5,
			Progress: 0.4, Deadline: &dl, P50: &p50, P90: &p90, PMeet: &pm, Needed: 12, Verdict: "on track",
			CDF: []sidecar.CDFPoint{{T: t0.Add(50 * time.Minute), P: 0.1}, {T: p50, P: 0.5}, {T: p90, P: 0.9}}}},
		Rates: []sidecar.RateStatus{{Class: "crypto", NodeType: "gpu", Ratio: 2, Low: 1.9, High: 2.1, Samples: 40, Known: true},
			{Class: "crypto", NodeType: "cpu", Ratio: 1, Low: 1, High: 1, Samples: 40, Known: true},
			{Class: "sort", NodeType: "gpu", Samples: 1}},
		Queues: []sidecar.QueueStatus{
			{Queue: "root.crypto", Partition: "", Capacity: 50, AbsCapacity: 50, AbsUsed: 20, AdminCapacity: &admin50},
			{Queue: "root.crypto", Partition: "gpu", Capacity: 75, AbsCapacity: 75, AbsUsed: 60, AdminCapacity: &admin25},
			{Queue: "root.sort", Partition: "", Capacity: 50, AbsCapacity: 50, AbsUsed: 40, AdminCapacity: &admin50},
			{Queue: "root.sort", Partition: "gpu", Capacity: 25, AbsCapacity: 25, AbsUsed: 10, Pinned: true}},
		History: []sidecar.PSPoint{
			{Time: t0, SumPS: 1.0, MinPS: 0.5, Bound: 1.27, Jobs: map[string]float64{"application_1_0001": 0.5},
				Queues: qpts(25), Shares: []sidecar.QueueShare{{Queue: "root.crypto", Jobs: 1, PS: 0.5, Fair: 0.5}}},
			{Time: t0.Add(30 * time.Second), SumPS: 1.25, MinPS: 0.6, Bound: 1.27, Jobs: map[string]float64{"application_1_0001": 0.6},
				Queues: qpts(75), Shares: []sidecar.QueueShare{{Queue: "root.crypto", Jobs: 1, PS: 0.6, Fair: 0.5}}}},
		Plans: []sidecar.PlanRecord{{Time: t0, Result: act.ResultApplied, Reasons: []string{"queue crypto: jobs run 2.0× on gpu vs the default partition"},
			Changes: []plan.Change{
				{Queue: "root.crypto", Property: "accessible-node-labels.gpu.capacity", From: "25", To: "75", Limited: true, SetBy: "targets", Reason: "queue crypto: jobs run 2.0× on gpu vs the default partition"},
				{Queue: "root.crypto", Partition: "gpu", Property: "default-node-label-expression", From: "", To: "gpu", Reason: "queue crypto: jobs run 2.0× on gpu vs the default partition"},
				{Queue: "root.sort", Property: "accessible-node-labels.gpu.capacity", From: "75", To: "25", Reason: "queue sort: idle; its share goes to the queues that need it"}}}},
	}
}

// sampleOutcomes: crypto jobs finish faster steered; one deadline missed in
// the baseline, met with the sidecar.
func sampleOutcomes() *Outcomes {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	job := func(name, class string, submit, mins int, dl *int) JobOutcome {
		j := JobOutcome{AppID: "app_" + name, Name: name, Class: class, Queue: "root." + class,
			Submit: t0.Add(time.Duration(submit) * time.Minute), Finish: t0.Add(time.Duration(submit+mins) * time.Minute)}
		if dl != nil {
			d := t0.Add(time.Duration(*dl) * time.Minute)
			j.Deadline = &d
		}
		return j
	}
	dl := 40
	return &Outcomes{Baseline: "the same jobs under stock capacities",
		BaselineJobs: []JobOutcome{job("c1", "crypto", 0, 50, &dl), job("c2", "crypto", 5, 60, nil), job("s1", "sort", 0, 20, nil)},
		Steered:      []JobOutcome{job("c1", "crypto", 0, 30, &dl), job("c2", "crypto", 5, 35, nil), job("s1", "sort", 0, 21, nil)}}
}

func TestRenderHasEverySection(t *testing.T) {
	var buf bytes.Buffer
	if err := Render(&buf, sampleStatus(), Options{Generated: time.Unix(0, 0), Outcomes: sampleOutcomes()}); err != nil {
		t.Fatal(err)
	}
	html := buf.String()
	for _, want := range []string{
		`id="partitions"`, `id="shares"`, `id="boxes"`, `id="timeline"`, `id="mutations"`, `id="cr-heatmap"`, `<details id="jobs">`,
		"2.00×", "unknown", "root.crypto", "on track", "93%", "Hadoop 3.3.6", "local-only", "RM-side validation unavailable",
		"2 of 4 class × node-type rates unknown", "application_1_0002 tasks", `id="window">5m<`,
		"crypto: guarantee gpu 25→75% (step-limited); its home moved to gpu — jobs run 2.0× on gpu vs the default partition.",
		"sort: guarantee gpu 75→25% — idle; its share goes to the queues that need it.",
		"<summary>properties (3)</summary>", "root.crypto accessible-node-labels.gpu.capacity 25→75</code> set by targets (step-limited)",
		"the same jobs under stock capacities", "Chart.defaults.animation",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(html, "https://") && strings.Contains(html, "<script src=") {
		t.Error("report must not load scripts from the network (it is mailed and opened offline)")
	}
}

// Jobs holding a container or two of thousands of slots: the header says
// the cluster is nearly idle rather than "ΣPS 0.00".
func TestRenderNearlyIdleStatesIt(t *testing.T) {
	st := sampleStatus()
	st.SumPS, st.MinPS = 0.0006, 0.0003
	st.Jobs[0].Containers = map[string]int{"cpu": 1}
	var buf bytes.Buffer
	if err := Render(&buf, st, Options{Generated: time.Unix(0, 0)}); err != nil {
		t.Fatal(err)
	}
	html := buf.String()
	if !strings.Contains(html, "Nearly idle: the 1 running job(s) hold 1 container(s) of the cluster's slots (ΣPS &lt;0.01 of a possible 1.27)") {
		t.Errorf("nearly idle header missing:\n%s", html[strings.Index(html, `id="state"`):strings.Index(html, `id="warnings"`)])
	}
	if strings.Contains(html, "ΣPS <b") {
		t.Error("nearly idle report prints ΣPS as a headline number")
	}
}

// At the end of a run nothing runs: the header says so instead of ΣPS 0.00.
func TestRenderIdleClusterStatesIt(t *testing.T) {
	st := sampleStatus()
	st.LastRunning = st.Time.Add(-10 * time.Minute)
	st.Jobs, st.SumPS, st.MinPS = nil, 0, 0
	var buf bytes.Buffer
	if err := Render(&buf, st, Options{Generated: time.Unix(0, 0)}); err != nil {
		t.Fatal(err)
	}
	html := buf.String()
	for _, want := range []string{"No jobs running now — the last ran at 2025-12-31 23:50:30Z", `id="no-baseline"`} {
		if !strings.Contains(html, want) {
			t.Errorf("idle report lacks %q", want)
		}
	}
	for _, bad := range []string{"ΣPS <b", "min PS <b"} {
		if strings.Contains(html, bad) {
			t.Errorf("idle report prints %q (zeros for a cluster that runs nothing)", bad)
		}
	}
}

func TestQuantiles(t *testing.T) {
	for _, c := range []struct {
		xs                 []float64
		min, p25, p50, max float64
	}{
		{[]float64{4, 1, 3, 2, 5}, 1, 2, 3, 5},
		{[]float64{10}, 10, 10, 10, 10},
		{[]float64{1, 2}, 1, 1.25, 1.5, 2},
	} {
		q := quantiles(c.xs)
		if q.Min != c.min || q.P25 != c.p25 || q.P50 != c.p50 || q.Max != c.max || q.N != len(c.xs) {
			t.Errorf("quantiles(%v) = %+v", c.xs, q)
		}
	}
	if q := quantiles(nil); q.N != 0 {
		t.Errorf("quantiles(nil) = %+v", q)
	}
}

// Smoothing: a queue's PS averages over the window and is null while idle.
func TestShareChartsSmoothAndGapWhenIdle(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var st sidecar.Status
	for i, ps := range []float64{0.2, 0.4, 0.6, -1, -1, -1, -1, -1, -1} {
		pt := sidecar.PSPoint{Time: t0.Add(time.Duration(i) * time.Minute)}
		if ps >= 0 {
			pt.Shares = []sidecar.QueueShare{{Queue: "root.a", Jobs: 1, PS: ps, Fair: 0.5}}
		}
		st.History = append(st.History, pt)
	}
	got := shareCharts(st, func(t time.Time) float64 { return t.Sub(t0).Minutes() })
	if len(got) != 1 {
		t.Fatalf("charts = %d, want 1", len(got))
	}
	// Minutes 3 and 4 average the running cycles 0..2, all still in the
	// 5-minute window (t-5m, t]; minutes 5 and 6 only 1..2 and 2; from
	// minute 7 none is left: a gap.
	want := []float64{0.2, 0.3, 0.4, 0.4, 0.4, 0.5, 0.6}
	for i, w := range want {
		if y := got[0].PS[i].Y; y == nil || *y != w {
			t.Errorf("smoothed PS[%d] = %v, want %v", i, y, w)
		}
	}
	for i := 7; i < 9; i++ {
		if got[0].PS[i].Y != nil {
			t.Errorf("PS[%d] after 5 idle minutes = %v, want null", i, *got[0].PS[i].Y)
		}
	}
}

func TestFmtMinutes(t *testing.T) {
	for m, want := range map[float64]string{5: "5m", 2.0833: "2m05s", 0.5: "0m30s", 65: "1h05m", 125.4: "2h05m"} {
		if got := fmtMinutes(m); got != want {
			t.Errorf("fmtMinutes(%v) = %q, want %q", m, got, want)
		}
	}
}

func TestChurnCountsReversals(t *testing.T) {
	ch := func(from, to string) plan.Change {
		return plan.Change{Queue: "root.a", Property: "accessible-node-labels.gpu.capacity", From: from, To: to}
	}
	plans := []sidecar.PlanRecord{
		{Result: act.ResultApplied, Changes: []plan.Change{ch("25", "50")}},
		{Result: act.ResultApplied, Changes: []plan.Change{ch("50", "25")}},  // undoes
		{Result: act.ResultRejected, Changes: []plan.Change{ch("25", "50")}}, // not applied: ignored
		{Result: act.ResultApplied, Changes: []plan.Change{ch("25", "50")}},  // undoes again
		{Result: act.ResultApplied, Changes: []plan.Change{ch("50", "75")}},
	}
	got := churn(plans)
	if len(got) != 1 || got[0].Changes != 4 || got[0].Reversed != 2 {
		t.Errorf("churn = %+v, want root.a 4 changes, 2 reversed", got)
	}
}

// Without a baseline, a daemon's report shows the jobs it saw finish.
func TestRenderSeenJobsWithoutBaseline(t *testing.T) {
	st := sampleStatus()
	t0 := st.Time
	dl := t0.Add(-time.Minute)
	st.Finished = []sidecar.SeenJob{
		{AppID: "a1", Name: "sort-1", Class: "sort", FirstSeen: t0.Add(-20 * time.Minute), LastSeen: t0.Add(-10 * time.Minute)},
		{AppID: "a2", Name: "sort-2", Class: "sort", FirstSeen: t0.Add(-15 * time.Minute), LastSeen: t0.Add(-2 * time.Minute), Deadline: &dl},
	}
	var buf bytes.Buffer
	if err := Render(&buf, st, Options{Generated: time.Unix(0, 0)}); err != nil {
		t.Fatal(err)
	}
	html := buf.String()
	for _, want := range []string{`id="no-baseline"`, "jobs this sidecar saw finish", "Met <b>1</b>, missed <b class=\"\">0</b> with the sidecar.", `id="boxes"`} {
		if !strings.Contains(html, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(html, "the baseline met") {
		t.Error("report compares with a baseline it does not have")
	}
}

// The daemon's /report times the jobs it saw finish by YARN's start and
// finish (issue 35: by the cycles that saw them, every class showed 0m).
func TestRenderSeenJobsTimedByYARN(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b := &sidecar.StatusBoard{}
	cycle := func(n int) sidecar.CycleReport {
		return sidecar.CycleReport{Cycle: int64(n), Snapshot: cluster.Snapshot{Time: t0.Add(time.Duration(n) * 30 * time.Second), RM: "rm"}}
	}
	rep := cycle(1)
	rep.Snapshot.Apps = []cluster.App{{ID: "a1", StartedTime: t0.Add(-11 * time.Minute)}}
	rep.Decision.Jobs = []sidecar.JobStatus{{AppID: "a1", Queue: "root.a", Class: "sort"}}
	sidecar.RecordCycle(b, rep)
	rep = cycle(2)
	rep.Finished = []learn.FinishedJob{{AppID: "a1", Started: t0.Add(-11 * time.Minute), Finished: t0.Add(time.Minute)}}
	sidecar.RecordCycle(b, rep)

	var buf bytes.Buffer
	if err := Render(&buf, b.Get(), Options{Generated: t0}); err != nil {
		t.Fatal(err)
	}
	html := buf.String()
	i := strings.Index(html, `<table id="classes">`)
	if i < 0 {
		t.Fatal("no classes table")
	}
	table := html[i : i+strings.Index(html[i:], "</table>")]
	if !strings.Contains(table, "<td>12m</td>") || strings.Contains(table, "<td>0m</td>") {
		t.Errorf("sort's job ran 12m by YARN's times; table:\n%s", table)
	}
	if !strings.Contains(html, "timed by YARN's start and finish times") || strings.Contains(html, `id="cycle-timed"`) {
		t.Error("report does not say how the jobs were timed")
	}
}

// A report of dry-run cycles shows no mutations, and says the dry runs
// proposed changes without writing them.
func TestRenderDryRunsNoMutations(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b := &sidecar.StatusBoard{}
	for n := 1; n <= 3; n++ {
		sidecar.RecordCycle(b, sidecar.CycleReport{Cycle: int64(n), Snapshot: cluster.Snapshot{Time: t0.Add(time.Duration(n) * 30 * time.Second), RM: "rm"},
			Plan:    &plan.Plan{Changes: []plan.Change{{Queue: "root.a", Property: "capacity", From: "50", To: "60"}}},
			Outcome: act.Outcome{Result: act.ResultDryRun}})
	}
	var buf bytes.Buffer
	if err := Render(&buf, b.Get(), Options{Generated: t0}); err != nil {
		t.Fatal(err)
	}
	html := buf.String()
	if strings.Contains(html, `id="mutations"`) || !strings.Contains(html, `id="no-mutations"`) {
		t.Error("dry-run cycles drawn as mutations per hour")
	}
	if !strings.Contains(html, "3 dry-run plan(s) proposed changes and wrote nothing") {
		t.Error("report does not count the dry-run plans apart")
	}
}
