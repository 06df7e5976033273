package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
	"github.com/yarn-sidecar/yarn-sidecar/yarn"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// The scale rows (issue 19): on scale-10k (10,000 nodes, 200 queues,
// thousands of running apps) and on hetero-1000 (1,000 nodes), served by
// the mini RM in this process over loopback HTTP after 30 simulated
// minutes:
//   - one snapshot as the daemon takes it (node types from host rules,
//     placement per type from resourceUsagesByPartition, listings only for
//     apps on mixed partitions within the default budget) against
//     exporterScrape — what PBWebMedia/yarn-prometheus-exporter does per
//     scrape — measured back to back;
//   - the next snapshot 30 s later;
//   - one full control cycle in dry-run (observe, learn, decide, plan,
//     dry-run apply) through sidecar.Loop, with a row per step.
//
// The mini RM's handler time is summed over every request of a measure
// ("RM busy"): it renders each answer from its state, so that much of
// the wall time is the server's, not the client's. Requests overlap, so
// the sum can exceed the wall time.
func init() {
	register(Bench{Area: "scale", Order: 21, Run: benchScale})
}

// rmMeter wraps the mini RM's handler, summing handler time and requests.
// With prerendered set, GET answers are rendered once and then served
// from memory, so a measure shows the client's cost (and the transfer)
// without the mini RM's rendering.
type rmMeter struct {
	h           http.Handler
	busy        atomic.Int64 // ns
	requests    atomic.Int64
	bytes       atomic.Int64 // response bodies sent
	amRequests  atomic.Int64 // to running jobs' AMs (/proxy/...)
	prerendered atomic.Bool
	mu          sync.Mutex
	cache       map[string]*httptest.ResponseRecorder
	last        int64 // bytes sent during the last metered call
}

// countingWriter counts the body bytes a handler writes.
type countingWriter struct {
	http.ResponseWriter
	n *atomic.Int64
}

func (c countingWriter) Write(b []byte) (int, error) {
	n, err := c.ResponseWriter.Write(b)
	c.n.Add(int64(n))
	return n, err
}

func (m *rmMeter) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	w := countingWriter{rw, &m.bytes}
	start := time.Now()
	defer func() {
		m.busy.Add(int64(time.Since(start)))
		m.requests.Add(1)
		if strings.HasPrefix(r.URL.Path, "/proxy/") {
			m.amRequests.Add(1)
		}
	}()
	if !m.prerendered.Load() || r.Method != http.MethodGet {
		m.h.ServeHTTP(w, r)
		return
	}
	m.mu.Lock()
	rec, ok := m.cache[r.URL.RequestURI()]
	m.mu.Unlock()
	if !ok {
		rec = httptest.NewRecorder()
		m.h.ServeHTTP(rec, r)
		m.mu.Lock()
		if m.cache == nil {
			m.cache = map[string]*httptest.ResponseRecorder{}
		}
		m.cache[r.URL.RequestURI()] = rec
		m.mu.Unlock()
	}
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	w.Write(rec.Body.Bytes())
}

// metered runs f under measure and reports the RM's handler time and
// requests during it (and the bytes it sent, in m.last).
func (m *rmMeter) metered(f func() error) (Measured, time.Duration, int64, error) {
	b0, r0, n0 := m.busy.Load(), m.requests.Load(), m.bytes.Load()
	meas, err := measure(f)
	m.last = m.bytes.Load() - n0
	return meas, time.Duration(m.busy.Load() - b0), m.requests.Load() - r0, err
}

// hostRules are the node_types rules an admin would write for a scenario:
// one per node type by host name, longer names first (cpu-new-* before
// cpu-*).
func hostRules(sc *sim.Scenario) calibrate.Classifier {
	var c calibrate.Classifier
	for _, nt := range sc.NodeTypes {
		c.Rules = append(c.Rules, calibrate.NodeTypeRule{Name: nt.Name, HostPattern: nt.Name + "-*"})
	}
	sort.SliceStable(c.Rules, func(i, j int) bool { return len(c.Rules[i].Name) > len(c.Rules[j].Name) })
	return c
}

func benchScale(o Options) ([]Row, error) {
	var rows []Row
	for _, name := range []string{"scale-10k", "hetero-1000"} {
		r, err := benchScaleOne(o, name)
		if err != nil {
			return rows, fmt.Errorf("%s: %w", name, err)
		}
		rows = append(rows, r...)
	}
	return rows, nil
}

// stepTimer wraps the loop's observer, learner and decider to time each.
type stepTimer struct {
	obs                      sidecar.Observer
	learn                    sidecar.Learner
	dec                      sidecar.Decider
	observe, conf, learnT, d time.Duration
}

func (s *stepTimer) Observe(ctx context.Context, now time.Time) (cluster.Snapshot, error) {
	t := time.Now()
	defer func() { s.observe += time.Since(t) }()
	return s.obs.Observe(ctx, now)
}

func (s *stepTimer) SchedulerConf(ctx context.Context) (schedconf.Conf, error) {
	t := time.Now()
	defer func() { s.conf += time.Since(t) }()
	return s.obs.SchedulerConf(ctx)
}

func (s *stepTimer) Learn(ctx context.Context, snap cluster.Snapshot) error {
	t := time.Now()
	defer func() { s.learnT += time.Since(t) }()
	return s.learn.Learn(ctx, snap)
}

func (s *stepTimer) Decide(snap cluster.Snapshot, live schedconf.Conf) (sidecar.Decision, error) {
	t := time.Now()
	defer func() { s.d += time.Since(t) }()
	return s.dec.Decide(snap, live)
}

func benchScaleOne(o Options, name string) ([]Row, error) {
	sc, err := scenarioFor(name)
	if err != nil {
		return nil, err
	}
	c, err := warmCluster(o, sc)
	if err != nil {
		return nil, err
	}
	meter := &rmMeter{h: c.Handler()}
	srv := httptest.NewServer(meter)
	defer srv.Close()
	client, err := yarn.New(yarn.Config{RMAddresses: []string{srv.URL}, JHSAddress: srv.URL, Timeout: time.Minute, MaxResponseBytes: 1 << 30})
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	classifier := hostRules(sc)
	api := sidecar.YARN{Client: client, Jobs: true, NodeType: classifier.TypeOf}
	observeOnly := sidecar.YARN{Client: client, NodeType: classifier.TypeOf}

	// One snapshot vs the exporter's scrape, back to back.
	var seen exporterCounts
	exM, exRM, exReq, err := meter.metered(func() error {
		var err error
		seen, err = exporterScrape(srv.URL)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("exporter scrape: %w", err)
	}
	exBytes := meter.last
	var snap cluster.Snapshot
	snM, snRM, snReq, err := meter.metered(func() error {
		var err error
		snap, err = observeOnly.Observe(ctx, c.Now())
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	snBytes := meter.last
	// The same pair with every answer pre-rendered (rendered once by a
	// priming pass with a fresh client, then served from memory): the
	// client's own cost.
	meter.prerendered.Store(true)
	fresh := func() (sidecar.YARN, error) {
		cl, err := yarn.New(yarn.Config{RMAddresses: []string{srv.URL}, Timeout: time.Minute, MaxResponseBytes: 1 << 30})
		return sidecar.YARN{Client: cl, NodeType: classifier.TypeOf}, err
	}
	prime, err := fresh()
	if err != nil {
		return nil, err
	}
	if _, err := exporterScrape(srv.URL); err != nil {
		return nil, err
	}
	if _, err := prime.Observe(ctx, c.Now()); err != nil {
		return nil, err
	}
	measured, err := fresh()
	if err != nil {
		return nil, err
	}
	exPM, _, _, err := meter.metered(func() error { _, err := exporterScrape(srv.URL); return err })
	if err != nil {
		return nil, err
	}
	snPM, snPRM, _, err := meter.metered(func() error { _, err := measured.Observe(ctx, c.Now()); return err })
	if err != nil {
		return nil, err
	}
	meter.prerendered.Store(false)
	meter.cache = nil

	placed := map[cluster.PlacementSource]int{}
	for _, a := range snap.RunningApps() {
		placed[a.Placement]++
	}
	label := fmt.Sprintf("%s (%d nodes, %d running apps, %d queues)", name, len(snap.Nodes), len(snap.RunningApps()), len(snap.LeafQueues()))
	c.RunUntil(c.Now().Add(30 * time.Second))
	nxM, nxRM, nxReq, err := meter.metered(func() error {
		var err error
		snap, err = observeOnly.Observe(ctx, c.Now())
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("next snapshot: %w", err)
	}
	nxBytes := meter.last

	// A full cycle in dry-run. The calibration history first takes in the
	// 30 minutes before (a one-off), so the measured learn reads what
	// finished in the last 30 s, as every later cycle does.
	dir, err := os.MkdirTemp("", "bench-scale-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	store, err := calibrate.Open(filepath.Join(dir, "history.db"))
	if err != nil {
		return nil, err
	}
	defer store.Close()
	learner := &sidecar.HistoryLearner{Source: client, Store: store, Classifier: classifier, ClassKey: calibrate.ClassKey("tag"), RecomputeEvery: 5 * time.Minute}
	if err := learner.Refresh(); err != nil {
		return nil, err
	}
	if err := learner.Learn(ctx, snap); err != nil {
		return nil, fmt.Errorf("first ingest: %w", err)
	}
	slot := cluster.Resource{MemoryMB: 2048, VCores: 1}
	steps := &stepTimer{obs: api, learn: learner,
		dec: &sidecar.PSDecider{Table: learner.Table, Classifier: classifier, ClassKey: calibrate.ClassKey("tag"), Slot: slot, Models: learner.Models, Samples: 50}}
	loop := &sidecar.Loop{Observer: steps, Learner: steps, Decider: steps, Applier: &sidecar.Applier{API: api, User: "yarn-sidecar"},
		Mode: sidecar.ModeDryRun, Now: c.Now,
		Rules: func(s cluster.Snapshot) sidecar.SafetyRules {
			return sidecar.SafetyRules{MaxStepPercent: 10, HysteresisPercent: 2, FloorPercent: sidecar.FloorRule(s, slot, 1)}
		}}
	c.RunUntil(c.Now().Add(30 * time.Second))
	var rep sidecar.CycleReport
	am0 := meter.amRequests.Load()
	cyM, cyRM, cyReq, err := meter.metered(func() error {
		var err error
		rep, err = loop.Once(ctx)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("cycle: %w", err)
	}
	cyAM := meter.amRequests.Load() - am0
	// The plan step alone, on the cycle's own decision (it is pure).
	live, err := api.SchedulerConf(ctx)
	if err != nil {
		return nil, err
	}
	planStart := time.Now()
	plan, err := sidecar.BuildPlan(rep.Snapshot.Time, live, rep.Snapshot.ConfVersion, rep.Decision.Targets, loop.Rules(rep.Snapshot))
	if err != nil {
		return nil, fmt.Errorf("plan: %w", err)
	}
	planT := time.Since(planStart)
	plan.SetGlobals(rep.Decision.Globals)
	plan.Priorities = rep.Decision.Priorities
	// The dry-run apply alone, on that plan (validation against the mini
	// RM included, writes recorded only).
	applier := sidecar.Applier{API: &sidecar.DryRunAPI{Inner: api}, User: "yarn-sidecar", Mode: sidecar.ModeDryRun}
	applyStart := time.Now()
	if _, err := applier.Apply(ctx, plan); err != nil {
		return nil, fmt.Errorf("dry-run apply: %w", err)
	}
	applyT := time.Since(applyStart)

	ms := func(d time.Duration) string { return d.Round(time.Millisecond).String() }
	rmShare := func(busy, wall time.Duration, req int64) string {
		return fmt.Sprintf("RM busy %s over %d requests", ms(busy), req)
	}
	read := func(n int64) string { return fmt.Sprintf("%.1f MiB read", mib(uint64(n))) }
	rows := []Row{
		{Area: "scale", Name: fmt.Sprintf("%s: one snapshot (placement: %d by partition, %d listed, %d estimated); %s", label,
			placed[cluster.PlacementPartition], placed[cluster.PlacementListed], placed[cluster.PlacementEstimated], rmShare(snRM, snM.Wall, snReq)+", "+read(snBytes)),
			Figure:   fmt.Sprintf("%s, %.0f MiB heap", ms(snM.Wall), mib(snM.PeakHeap)),
			Baseline: fmt.Sprintf("exporter scrape %s, %.0f MiB (%d nodes, %d apps; %s, %s)", ms(exM.Wall), mib(exM.PeakHeap), seen.Nodes, seen.Apps, rmShare(exRM, exM.Wall, exReq), read(exBytes)),
			Ratio:    fmt.Sprintf("%.2f× time, %.2f× heap", snM.Wall.Seconds()/exM.Wall.Seconds(), float64(snM.PeakHeap)/float64(max(exM.PeakHeap, 1))),
			Goal:     "≤0.5× time, ≤1× heap"},
		{Area: "scale", Name: fmt.Sprintf("%s: one snapshot, every answer pre-rendered (the client's cost; RM serving %s)", name, ms(snPRM)),
			Figure:   fmt.Sprintf("%s, %.0f MiB heap", ms(snPM.Wall), mib(snPM.PeakHeap)),
			Baseline: fmt.Sprintf("exporter scrape, pre-rendered: %s, %.0f MiB", ms(exPM.Wall), mib(exPM.PeakHeap)),
			Ratio:    fmt.Sprintf("%.2f× time, %.2f× heap", snPM.Wall.Seconds()/exPM.Wall.Seconds(), float64(snPM.PeakHeap)/float64(max(exPM.PeakHeap, 1))),
			Goal:     "≤0.5× time, ≤1× heap"},
		{Area: "scale", Name: fmt.Sprintf("%s: the next snapshot, 30 s later; %s, %s", name, rmShare(nxRM, nxM.Wall, nxReq), read(nxBytes)),
			Figure:   fmt.Sprintf("%s, %.0f MiB heap", ms(nxM.Wall), mib(nxM.PeakHeap)),
			Baseline: fmt.Sprintf("exporter scrape %s, %.0f MiB", ms(exM.Wall), mib(exM.PeakHeap)),
			Ratio:    fmt.Sprintf("%.2f× time", nxM.Wall.Seconds()/exM.Wall.Seconds()), Goal: "≤0.5× time"},
		{Area: "scale", Name: fmt.Sprintf("%s: one control cycle, dry-run (observe with running jobs' AMs, learn, decide, plan, apply); %s", name, rmShare(cyRM, cyM.Wall, cyReq)),
			Figure:   fmt.Sprintf("%s, %.0f MiB heap", ms(cyM.Wall), mib(cyM.PeakHeap)),
			Baseline: fmt.Sprintf("exporter scrape %s", ms(exM.Wall)),
			Ratio:    fmt.Sprintf("%.2f× time", cyM.Wall.Seconds()/exM.Wall.Seconds()), Goal: "≤1.5 s, ≤512 MiB"},
	}
	// The job budget's trade-off: AM requests spent vs running MR apps,
	// and how current each app's job is in the cycle's snapshot.
	views := map[cluster.JobView]int{}
	mrApps := 0
	for _, a := range rep.Snapshot.RunningApps() {
		if a.Type == "MAPREDUCE" {
			mrApps++
			views[a.JobView]++
		}
	}
	rows = append(rows, Row{Area: "scale", Name: fmt.Sprintf("%s: the cycle's requests to running jobs' AMs (budget %d, 2 per job read, 3 at its first: the conf); jobs read fresh / kept / estimated from the RM's progress", name, yarn.DefaultJobBudget),
		Figure:   fmt.Sprintf("%d requests; %d / %d / %d", cyAM, views[cluster.JobFresh], views[cluster.JobReused], views[cluster.JobEstimated]),
		Baseline: fmt.Sprintf("%d running MapReduce apps (%d requests to read every job)", mrApps, 2*mrApps),
		Ratio:    fmt.Sprintf("%.2f×", float64(cyAM)/float64(max(1, 2*mrApps)))})
	for _, s := range []struct {
		step string
		d    time.Duration
	}{{"observe", steps.observe}, {"learn (jobs finished in 30 s)", steps.learnT}, {"read scheduler-conf", steps.conf}, {"decide", steps.d}, {"plan (alone, on the cycle's decision)", planT}, {"dry-run apply (alone, on that plan)", applyT}} {
		rows = append(rows, Row{Area: "scale", Name: fmt.Sprintf("%s: cycle step %s", name, s.step), Figure: ms(s.d),
			Ratio: fmt.Sprintf("%.0f%% of the cycle", 100*s.d.Seconds()/cyM.Wall.Seconds())})
	}
	return rows, nil
}

// warmCluster builds a scenario's cluster (seed 1) and runs it 30 virtual
// minutes (5 with -quick), so apps, containers and history are in flight.
func warmCluster(o Options, sc *sim.Scenario) (*sim.Cluster, error) {
	c, err := sim.NewCluster(sc, 1)
	if err != nil {
		return nil, err
	}
	warm := 30 * time.Minute
	if o.Quick {
		warm = 5 * time.Minute
	}
	c.RunUntil(c.Now().Add(warm))
	return c, nil
}
