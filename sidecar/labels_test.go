package sidecar

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/affinity"
	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/decide"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
	"github.com/yarn-sidecar/yarn-sidecar/yarn"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// unlabelled is lee-gpu with its GPU node left in the default partition,
// as on most clusters: nobody made a gpu label.
const unlabelled = `name: unlabelled
seed: 1
racks: 1
node_types:
  - {name: cpu, count: 2, memory_mb: 34816, vcores: 17}
  - {name: gpu, count: 1, memory_mb: 34816, vcores: 17, gpus: 4}
classes:
  - {name: crypto, map_seconds: 60, shuffle_seconds: 10, reduce_seconds: 20, speed: {gpu: 2.0}}
  - {name: sort, map_seconds: 60, shuffle_seconds: 10, reduce_seconds: 20}
conf:
  yarn.scheduler.capacity.root.queues: crypto,sort
  yarn.scheduler.capacity.root.crypto.capacity: "50"
  yarn.scheduler.capacity.root.crypto.maximum-capacity: "100"
  yarn.scheduler.capacity.root.sort.capacity: "50"
  yarn.scheduler.capacity.root.sort.maximum-capacity: "100"
jobs: []
`

// startUnlabelled serves the scenario through an optional wrapper of the
// mini RM's handler and returns a yarn client and an applier on it.
func startUnlabelled(t *testing.T, mode act.Mode, wrap func(http.Handler) http.Handler) (*sim.Cluster, *yarn.Client, *act.Applier, string) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "unlabelled.yaml")
	if err := os.WriteFile(path, []byte(unlabelled), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err := sim.LoadScenario(path)
	if err != nil {
		t.Fatal(err)
	}
	c, err := sim.NewCluster(sc, 1)
	if err != nil {
		t.Fatal(err)
	}
	var h http.Handler = c.Handler()
	if wrap != nil {
		h = wrap(h)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	client, err := yarn.New(yarn.Config{RMAddresses: []string{srv.URL}, User: "yarn"})
	if err != nil {
		t.Fatal(err)
	}
	audit, err := act.OpenAuditLog(filepath.Join(dir, "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { audit.Close() })
	a := &act.Applier{API: act.YARN{Client: client}, Audit: audit, Mode: mode, User: "yarn"}
	return c, client, a, filepath.Join(dir, "audit.jsonl")
}

// layoutFor plans the layout from the scenario's node types and rates as
// calibration would report them (crypto 2× on gpu).
func layoutFor(t *testing.T, client *yarn.Client) (act.LabelChange, map[string]string) {
	t.Helper()
	ctx := context.Background()
	nodes, err := client.Nodes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ln []affinity.LayoutNode
	for _, n := range nodes {
		typ := "cpu"
		if n.Total.GPUs > 0 {
			typ = "gpu"
		}
		ln = append(ln, affinity.LayoutNode{ID: n.ID, Type: typ, Slots: 16, Label: n.Partition})
	}
	layout, err := affinity.PlanLayout(ln, []affinity.LayoutClass{
		{Name: "crypto", Queue: "root.crypto", Demand: 16, Rates: map[string]float64{"cpu": 1, "gpu": 2}},
		{Name: "sort", Queue: "root.sort", Demand: 32, Rates: map[string]float64{"cpu": 1, "gpu": 1}},
	}, affinity.LayoutOptions{})
	if err != nil {
		t.Fatal(err)
	}
	labels, err := client.NodeLabels(ctx)
	if err != nil {
		t.Fatal(err)
	}
	before, err := client.NodePartitions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return act.LabelChangeFrom(layout, labels), before
}

func TestLabelsPlanApplyVerify(t *testing.T) {
	c, client, a, auditPath := startUnlabelled(t, act.ModeApply, nil)
	ctx := context.Background()
	ch, before := layoutFor(t, client)
	if len(ch.Add) != 1 || ch.Add[0].Name != "gpu" || ch.Add[0].Exclusive || len(ch.Nodes) != 1 {
		t.Fatalf("change %+v: want one non-exclusive gpu label on the one gpu node", ch)
	}
	if got := ch.Grants["gpu"]; len(got) != 1 || got[0] != "root.crypto" {
		t.Fatalf("grants %v: want gpu for root.crypto", ch.Grants)
	}
	// A calibration move's exposure rides the change into the audit.
	ch.Calibrations = []plan.CalibrationExposure{{Partition: "gpu", Containers: 8}}
	res, err := a.ApplyLabels(ctx, client, ch)
	if err != nil || res != act.ResultApplied {
		t.Fatalf("apply: %s %v", res, err)
	}
	after, err := client.NodePartitions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for id, l := range after {
		want := before[id]
		if nl, ok := ch.Nodes[id]; ok {
			want = nl
		}
		if l != want {
			t.Errorf("node %s in partition %q, want %q", id, l, want)
		}
	}
	conf, _ := c.SchedulerConf()
	tree, err := schedconf.ParseTree(conf)
	if err != nil {
		t.Fatal(err)
	}
	if !tree.ByPath["root.crypto"].CanUse("gpu") {
		t.Errorf("root.crypto cannot use gpu after the grant: %v", tree.ByPath["root.crypto"].AccessibleLabels)
	}
	if v := conf["yarn.scheduler.capacity.root.crypto.accessible-node-labels.gpu.capacity"]; v != "100" {
		t.Errorf("crypto's gpu capacity %q, want 100 (the only queue with access)", v)
	}
	entries := readAudit(t, auditPath)
	if len(entries) != 2 || entries[0].Result != act.ResultApplied || entries[1].Result != act.ResultApplied {
		t.Fatalf("audit %+v: want the label write then the access grant, both applied", entries)
	}
	if len(entries[0].Calibrations) != 1 || entries[0].Calibrations[0].Containers != 8 {
		t.Errorf("audit of the label write has exposure %+v, want 8 containers of gpu", entries[0].Calibrations)
	}
	for id := range ch.Nodes {
		if entries[0].After[act.NodeKey(id)] != "gpu" || entries[0].Before[act.NodeKey(id)] != "" {
			t.Errorf("audit of the label write lacks node %s's before/after: %+v", id, entries[0])
		}
	}
}

// A real RM answers 200 to a label body it cannot read and changes
// nothing: the read-back catches it and the labels added are removed.
func TestLabelsRollbackWhenTheRMIgnoresTheWrite(t *testing.T) {
	ignore := answerInstead(func(r *http.Request) bool { return strings.HasSuffix(r.URL.Path, "/replace-node-to-labels") }, http.StatusOK, "")
	_, client, a, auditPath := startUnlabelled(t, act.ModeApply, ignore)
	ctx := context.Background()
	ch, before := layoutFor(t, client)
	res, err := a.ApplyLabels(ctx, client, ch)
	if res != act.ResultRolledBack || err == nil || !strings.Contains(err.Error(), "read-back") {
		t.Fatalf("apply: %s %v, want rolled-back with a read-back error", res, err)
	}
	assertLabelsUnwritten(ctx, t, client, before, "after rollback")
	entries := readAudit(t, auditPath)
	if len(entries) != 1 || entries[0].Result != act.ResultRolledBack || entries[0].Error == "" {
		t.Fatalf("audit %+v: want one rolled-back record with its error", entries)
	}
}

func TestLabelsDryRunWritesNothing(t *testing.T) {
	_, client, a, auditPath := startUnlabelled(t, act.ModeDryRun, nil)
	ctx := context.Background()
	ch, before := layoutFor(t, client)
	res, err := a.ApplyLabels(ctx, client, ch)
	if err != nil || res != act.ResultDryRun {
		t.Fatalf("dry-run: %s %v", res, err)
	}
	assertLabelsUnwritten(ctx, t, client, before, "after a dry-run")
	if e := readAudit(t, auditPath); len(e) != 1 || e[0].Result != act.ResultDryRun {
		t.Errorf("audit %+v: want one dry-run record", e)
	}
}

func TestStrandCheck(t *testing.T) {
	cases := []struct {
		name         string
		before, next map[string]string
		want         string
	}{
		{"fine", map[string]string{"a": "", "b": ""}, map[string]string{"b": "gpu"}, ""},
		{"no default node left", map[string]string{"a": "", "b": ""}, map[string]string{"a": "gpu", "b": "gpu"}, "no node"},
		{"label moved off a node", map[string]string{"a": "", "b": "ssd"}, map[string]string{"b": "gpu"}, "carries label ssd"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := act.StrandCheck(c.before, c.next)
			if (err == nil) != (c.want == "") || err != nil && !strings.Contains(err.Error(), c.want) {
				t.Fatalf("strandCheck: %v, want %q", err, c.want)
			}
		})
	}
}

func TestGrantLabelAccess(t *testing.T) {
	base := schedconf.Conf{
		"yarn.scheduler.capacity.root.queues":                 "prod,dev",
		"yarn.scheduler.capacity.root.prod.capacity":          "60",
		"yarn.scheduler.capacity.root.prod.queues":            "etl,reports",
		"yarn.scheduler.capacity.root.prod.etl.capacity":      "50",
		"yarn.scheduler.capacity.root.prod.reports.capacity":  "50",
		"yarn.scheduler.capacity.root.dev.capacity":           "40",
		"yarn.scheduler.capacity.root.accessible-node-labels": " ",
	}
	got, err := act.GrantLabelAccess(base, "gpu", []string{"root.prod.etl", "root.dev"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"root.accessible-node-labels.gpu.capacity":          "100",
		"root.prod.accessible-node-labels":                  "gpu",
		"root.prod.accessible-node-labels.gpu.capacity":     "50",
		"root.dev.accessible-node-labels.gpu.capacity":      "50",
		"root.prod.etl.accessible-node-labels":              "gpu",
		"root.prod.etl.accessible-node-labels.gpu.capacity": "100",
	}
	for k, v := range want {
		if got[schedconf.Prefix+k] != v {
			t.Errorf("%s = %q, want %q", k, got[schedconf.Prefix+k], v)
		}
	}
	if _, ok := got[schedconf.Prefix+"root.prod.reports.accessible-node-labels.gpu.capacity"]; ok {
		t.Error("reports got gpu capacity without being granted")
	}
	if err := schedconf.ValidateWithLabels(got, []string{"gpu"}); err != nil {
		t.Errorf("granted configuration does not validate: %v", err)
	}
	if _, err := act.GrantLabelAccess(base, "gpu", []string{"root.nosuch"}); err == nil || !strings.Contains(err.Error(), "root.nosuch") {
		t.Errorf("unknown queue: %v", err)
	}
}

func TestLayouterWaitsForAStableProposal(t *testing.T) {
	snap := cluster.Snapshot{Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	for i, typ := range []string{"cpu", "cpu", "cpu", "gpu"} {
		snap.Nodes = append(snap.Nodes, cluster.Node{ID: fmt.Sprintf("%s-%d:8041", typ, i), Host: fmt.Sprintf("%s-%d", typ, i), State: "RUNNING",
			Total: cluster.Resource{MemoryMB: 16384}})
	}
	snap.Apps = []cluster.App{{ID: "a1", Queue: "root.ml", State: cluster.AppRunning, Tags: []string{"jobclass=train"},
		Allocated: cluster.Resource{MemoryMB: 16384}}}
	table := calibrate.Estimate(trainSamples(), calibrate.Options{MinSamples: 1, Reference: map[string]string{"*": "cpu"}})
	l := &LabelLayouter{Table: func() *calibrate.Table { return table }, ClassKey: calibrate.ClassKey("tag"),
		Classifier: calibrate.Classifier{Rules: []calibrate.NodeTypeRule{{Name: "gpu", HostPattern: "gpu-*"}, {Name: "cpu", HostPattern: "cpu-*"}}},
		Config:     LabelsConfig{StableCycles: 2, MinInterval: time.Hour}}
	steps := []struct {
		at    time.Duration
		ready bool
		wait  string
	}{
		{0, false, "1 of 2"},
		{30 * time.Second, true, ""},
	}
	for i, s := range steps {
		snap.Time = snap.Time.Add(s.at)
		rep, err := l.Propose(snap, nil)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Ready != s.ready || !strings.Contains(rep.Waiting, s.wait) {
			t.Fatalf("step %d: ready %v waiting %q, want %v %q (layout %+v)", i, rep.Ready, rep.Waiting, s.ready, s.wait, rep.Layout)
		}
	}
	l.Attempted(snap.Time, act.ResultApplied, nil)
	// Right after a change the interval holds the next one back.
	for i := 0; i < 3; i++ {
		snap.Time = snap.Time.Add(time.Minute)
		rep, _ := l.Propose(snap, nil)
		if rep.Ready {
			t.Fatalf("ready %d min after a change; min interval is 1h", i+1)
		}
	}
	snap.Time = snap.Time.Add(time.Hour)
	if rep, _ := l.Propose(snap, nil); !rep.Ready {
		t.Fatalf("not ready an hour later: %q", rep.Waiting)
	}
}

// Every attempt, whatever its result, holds the next one back for
// MinInterval and says why (issue 33: a layout the RM ignored was retried
// every cycle).
func TestLayouterCountsEveryAttempt(t *testing.T) {
	for _, tc := range []struct {
		res     act.Result
		err     error
		waiting string
	}{
		{act.ResultApplied, nil, "last label change 10m0s ago (min interval 1h0m0s)"},
		{act.ResultRolledBack, errors.New("read-back after apply differs"), "last label change rolled-back 10m0s ago, not retried before the min interval 1h0m0s: read-back after apply differs"},
		{act.ResultFailed, errors.New("rollback failed"), "last label change failed 10m0s ago, not retried before the min interval 1h0m0s: rollback failed"},
		{act.ResultRejected, errors.New("node x is not in the cluster"), "last label change rejected 10m0s ago, not retried before the min interval 1h0m0s: node x is not in the cluster"},
	} {
		t.Run(string(tc.res), func(t *testing.T) {
			snap := cluster.Snapshot{Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
			for i, typ := range []string{"cpu", "cpu", "cpu", "gpu"} {
				snap.Nodes = append(snap.Nodes, cluster.Node{ID: fmt.Sprintf("%s-%d:8041", typ, i), Host: fmt.Sprintf("%s-%d", typ, i), State: "RUNNING",
					Total: cluster.Resource{MemoryMB: 16384}})
			}
			snap.Apps = []cluster.App{{ID: "a1", Queue: "root.ml", State: cluster.AppRunning, Tags: []string{"jobclass=train"},
				Allocated: cluster.Resource{MemoryMB: 16384}}}
			table := calibrate.Estimate(trainSamples(), calibrate.Options{MinSamples: 1, Reference: map[string]string{"*": "cpu"}})
			l := &LabelLayouter{Table: func() *calibrate.Table { return table }, ClassKey: calibrate.ClassKey("tag"),
				Classifier: calibrate.Classifier{Rules: []calibrate.NodeTypeRule{{Name: "gpu", HostPattern: "gpu-*"}, {Name: "cpu", HostPattern: "cpu-*"}}},
				Config:     LabelsConfig{StableCycles: 1, MinInterval: time.Hour}}
			if rep, _ := l.Propose(snap, nil); !rep.Ready {
				t.Fatalf("not ready before any attempt: %q", rep.Waiting)
			}
			l.Attempted(snap.Time, tc.res, tc.err)
			snap.Time = snap.Time.Add(10 * time.Minute)
			rep, _ := l.Propose(snap, nil)
			if rep.Ready || rep.Waiting != tc.waiting {
				t.Errorf("10 min after a %s attempt: ready %v, waiting %q, want %q", tc.res, rep.Ready, rep.Waiting, tc.waiting)
			}
			if rep.LastAttempt == nil || rep.LastAttempt.Result != tc.res {
				t.Errorf("last attempt %+v, want %s", rep.LastAttempt, tc.res)
			}
			snap.Time = snap.Time.Add(50 * time.Minute)
			if rep, _ := l.Propose(snap, nil); !rep.Ready {
				t.Errorf("not ready once the interval passed: %q", rep.Waiting)
			}
		})
	}
}

// trainSamples: train maps take 40 s on cpu and 10 s on gpu (4×).
func trainSamples() []calibrate.Sample {
	var out []calibrate.Sample
	for i := 0; i < 6; i++ {
		for typ, sec := range map[string]int{"cpu": 40, "gpu": 10} {
			out = append(out, calibrate.Sample{AttemptID: fmt.Sprintf("a%d-%s", i, typ), JobID: "j1", Class: "train", NodeType: typ,
				Elapsed: time.Duration(sec) * time.Second, Finish: time.Unix(int64(i), 0)})
		}
	}
	return out
}

// A partition where the admin configured no capacity for a queue — one
// that existed without one, or one the sidecar creates — carries no promise:
// its band is open, and the sidecar's own first write there is never taken
// for the admin's value. An explicit admin value keeps its band.
func TestBandsWhereTheAdminPromisedNothing(t *testing.T) {
	conf := schedconf.Conf{
		"yarn.scheduler.capacity.root.queues":                                "a,b",
		"yarn.scheduler.capacity.root.accessible-node-labels":                "*",
		"yarn.scheduler.capacity.root.accessible-node-labels.ssd.capacity":   "100",
		"yarn.scheduler.capacity.root.a.capacity":                            "60",
		"yarn.scheduler.capacity.root.a.accessible-node-labels.ssd.capacity": "100",
		"yarn.scheduler.capacity.root.b.capacity":                            "40",
	}
	fs := &FirstSeen{}
	if err := fs.MarkUnset("gpu", []string{"root.b"}); err != nil {
		t.Fatal(err)
	}
	seen, err := fs.Observe(mustTree(t, conf))
	if err != nil {
		t.Fatal(err)
	}
	// The sidecar's grant appears later: it must not become the first value.
	granted, err := act.GrantLabelAccess(conf, "gpu", []string{"root.b"})
	if err != nil {
		t.Fatal(err)
	}
	if seen, err = fs.Observe(mustTree(t, granted)); err != nil {
		t.Fatal(err)
	}
	g := decide.Guarantee{Min: 0.25, Max: 4}
	cases := []struct {
		queue, part string
		want        plan.Band
	}{
		{"root.a", "", plan.Band{Lo: 15, Hi: 100}},
		{"root.b", "", plan.Band{Lo: 10, Hi: 100}},
		{"root.a", "ssd", plan.Band{Lo: 25, Hi: 100}},
		{"root.b", "ssd", plan.Band{Lo: 0, Hi: 100}},
		{"root.b", "gpu", plan.Band{Lo: 0, Hi: 100}},
	}
	for _, c := range cases {
		if got := decide.BandOfSeen(g, seen[seenKey(c.queue, c.part)]); got != c.want {
			t.Errorf("%s in %q: band %v, want %v (seen %+v)", c.queue, c.part, got, c.want, seen[seenKey(c.queue, c.part)])
		}
	}
	if got := decide.BandOfSeen(decide.Guarantee{Min: 0.25, Max: 4, Pinned: true}, seen[seenKey("root.b", "gpu")]); got != (plan.Band{Lo: 0, Hi: 0}) {
		t.Errorf("pinned queue without an admin value: band %v, want [0, 0]", got)
	}
}

// The queues' access to a new label is a scheduler-conf mutation the rate
// limit may hold back. Held back after the labels were written, it left
// them written without access; the rate limit is now asked first, and a
// held-back change writes nothing.
func TestLabelsDeferredWriteNothing(t *testing.T) {
	_, client, a, auditPath := startUnlabelled(t, act.ModeApply, nil)
	ctx := context.Background()
	a.Rate = &act.RateLimit{MinInterval: time.Hour}
	a.Rate.Record(time.Now()) // a mutation a moment ago: the next waits an hour
	ch, before := layoutFor(t, client)
	res, err := a.ApplyLabels(ctx, client, ch)
	if err != nil || res != act.ResultDeferred {
		t.Fatalf("apply: %s %v, want deferred", res, err)
	}
	assertLabelsUnwritten(ctx, t, client, before, "after a deferred change")
	if e := readAudit(t, auditPath); len(e) != 0 {
		t.Errorf("audit %+v: a deferred change writes no record", e)
	}
}

// A grant the RM refuses takes the labels back with it: labels without
// the access they were for are half a change.
func TestLabelsRolledBackWhenTheGrantIsRefused(t *testing.T) {
	refuse := answerInstead(func(r *http.Request) bool {
		return r.Method == http.MethodPut && strings.HasSuffix(r.URL.Path, "/scheduler-conf")
	}, http.StatusBadRequest, "refused for the test")
	_, client, a, auditPath := startUnlabelled(t, act.ModeApply, refuse)
	ctx := context.Background()
	ch, before := layoutFor(t, client)
	res, err := a.ApplyLabels(ctx, client, ch)
	if res != act.ResultRolledBack || err == nil || !strings.Contains(err.Error(), "grant the queues access") {
		t.Fatalf("apply: %s %v, want rolled back for the grant", res, err)
	}
	assertLabelsUnwritten(ctx, t, client, before, "after the rollback")
	e := readAudit(t, auditPath)
	if len(e) < 3 || e[0].Result != act.ResultApplied || e[len(e)-1].Result != act.ResultRolledBack {
		t.Fatalf("audit %+v: want the label write, the refused grant, then the labels' rollback", e)
	}
}

// answerInstead wraps the mini RM: a request match picks is answered
// with status and body (empty: the status alone, as a real RM's 200 to a
// label body it cannot read) instead; the rest reach the RM.
func answerInstead(match func(*http.Request) bool, status int, body string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch {
			case !match(r):
			case body == "":
				w.WriteHeader(status)
				return
			default:
				http.Error(w, body, status)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// assertLabelsUnwritten: every node is in the partition it was in before
// and no label exists (the unlabelled cluster's start), when said.
func assertLabelsUnwritten(ctx context.Context, t *testing.T, client *yarn.Client, before map[string]string, when string) {
	t.Helper()
	after, _ := client.NodePartitions(ctx)
	for id, l := range before {
		if after[id] != l {
			t.Errorf("node %s in %q %s, want %q", id, after[id], when, l)
		}
	}
	if labels, _ := client.NodeLabels(ctx); len(labels) != 0 {
		t.Errorf("labels %v %s, want none", labels, when)
	}
}
