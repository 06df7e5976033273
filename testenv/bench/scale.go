package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/learn"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
	"github.com/yarn-sidecar/yarn-sidecar/yarn"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// The scale rows (issue 19): on scale-10k (10,000 nodes, 200 queues,
// thousands of running apps) and on hetero-1000 (1,000 nodes), served by
// the mini RM in its own process (rmchild.go) over loopback HTTP after 30
// simulated minutes, as the user ran yarnsim:
//   - one snapshot as the daemon takes it (node types from host rules,
//     placement per type from resourceUsagesByPartition, listings only for
//     apps on mixed partitions within the default budget) against
//     exporterScrape — what PBWebMedia/yarn-prometheus-exporter does per
//     scrape — measured back to back;
//   - the next snapshot 30 s later, against the same with the node
//     listing re-read and with apps' resourceInfo read every time;
//   - one full control cycle in dry-run (observe, learn, decide, plan,
//     dry-run apply) through sidecar.Loop, with a row per step.
//
// Wall time and peak heap are this process's: the client's alone. The
// mini RM's share comes from its own meter: handler time summed over
// every request of a measure (requests overlap, so the sum can exceed the
// wall time) and the RM process's CPU meanwhile (rendering, GC, serving).
func init() {
	// Rows: per cluster: one snapshot, the next, one cycle.
	register(Bench{Area: "scale", Order: 21, Run: benchScale, Rows: 6})
}

// scaleReps is how often the snapshot and scrape are measured (medians
// reported): the bench shares its machine, and one pair's ratio moves
// with whatever else runs meanwhile.
func scaleReps(o Options) int {
	if o.Quick {
		return 1
	}
	return 3
}

// repeated collects the measures of one thing.
type repeated struct {
	m  []Measured
	rm []rmReading
}

func (r *repeated) add(m Measured, rm rmReading, err error) error {
	if err != nil {
		return err
	}
	r.m = append(r.m, m)
	r.rm = append(r.rm, rm)
	return nil
}

// median is the median wall time with the RM's reading of that run, and
// the median peak heap (upper median for an even count).
func (r *repeated) median() (Measured, rmReading) {
	idx := make([]int, len(r.m))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return r.m[idx[a]].Wall < r.m[idx[b]].Wall })
	mid := idx[len(idx)/2]
	heaps := make([]uint64, len(r.m))
	for i, m := range r.m {
		heaps[i] = m.PeakHeap
	}
	sort.Slice(heaps, func(a, b int) bool { return heaps[a] < heaps[b] })
	return Measured{Wall: r.m[mid].Wall, PeakHeap: heaps[len(heaps)/2], CPU: r.m[mid].CPU}, r.rm[mid]
}

// spread is the wall times' range, e.g. "1.2–1.9 s over 3" ("" for one run).
func (r *repeated) spread() string {
	if len(r.m) < 2 {
		return ""
	}
	lo, hi := r.m[0].Wall, r.m[0].Wall
	for _, m := range r.m {
		lo, hi = min(lo, m.Wall), max(hi, m.Wall)
	}
	return fmt.Sprintf(" (median; %.2f–%.2f s over %d)", lo.Seconds(), hi.Seconds(), len(r.m))
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
	obs                      act.Observer
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
	sc, err := scenarioFor(name) // for the host rules; the child builds the cluster
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rm, err := startRMProcess(ctx, name, warmFor(o))
	if err != nil {
		return nil, err
	}
	defer rm.Stop()
	// The mini RM's virtual clock, as of its last control answer: it
	// moves only when the bench advances it.
	r0, err := rm.Meter()
	if err != nil {
		return nil, err
	}
	now := r0.Now
	clock := func() time.Time { return now }
	advance := func(d time.Duration) error {
		r, err := rm.Advance(d)
		if err != nil {
			return err
		}
		now = r.Now
		return nil
	}
	// RunningReduces as the daemon reads jobs (only the cycle reads them).
	client, err := yarn.New(yarn.Config{RMAddresses: []string{rm.URL}, JHSAddress: rm.URL, Timeout: time.Minute, MaxResponseBytes: 1 << 30, RunningReduces: true})
	if err != nil {
		return nil, err
	}
	classifier := hostRules(sc)
	api := act.YARN{Client: client, Jobs: true, NodeType: classifier.TypeOf, NodeListingMaxAge: o.NodeListingMaxAge}
	observeOnly := act.YARN{Client: client, NodeType: classifier.TypeOf, NodeListingMaxAge: o.NodeListingMaxAge}

	// One snapshot vs the exporter's scrape, back to back, reps times
	// alternating; each snapshot but the last by a fresh client, the last
	// by the client the next snapshot and the cycle go on with.
	fresh := func() (act.YARN, error) {
		cl, err := yarn.New(yarn.Config{RMAddresses: []string{rm.URL}, Timeout: time.Minute, MaxResponseBytes: 1 << 30})
		return act.YARN{Client: cl, NodeType: classifier.TypeOf}, err
	}
	reps := scaleReps(o)
	// The floors' URIs, as a client of the daemon's options sends them:
	// its first snapshot, then its next (apps read lean, the listing
	// reused), recorded once before the measures.
	rec := &uriRecorder{rt: http.DefaultTransport.(*http.Transport).Clone()}
	recClient, err := yarn.New(yarn.Config{RMAddresses: []string{rm.URL}, Timeout: time.Minute, MaxResponseBytes: 1 << 30, HTTPClient: &http.Client{Transport: rec}})
	if err != nil {
		return nil, err
	}
	recorded := act.YARN{Client: recClient, NodeType: classifier.TypeOf, NodeListingMaxAge: o.NodeListingMaxAge}
	if _, err := recorded.Observe(ctx, now); err != nil {
		return nil, fmt.Errorf("snapshot, recorded: %w", err)
	}
	firstAll := rec.take()
	firstURIs, err := floorURIs(firstAll, firstFloorKinds)
	if err != nil {
		return nil, err
	}
	// Every request of that snapshot, for a row that says what share of
	// the snapshot is the RM's and the transfer's (no decoding).
	allFirst, allListings := splitListings(firstAll)
	if _, err := recorded.Observe(ctx, now); err != nil {
		return nil, fmt.Errorf("next snapshot, recorded: %w", err)
	}
	nextURIs, err := floorURIs(rec.take(), nextFloorKinds)
	if err != nil {
		return nil, err
	}
	nextApps := "apps with resourceInfo (the client read it in full again)"
	if strings.Contains(nextURIs[0], "resourceInfo") { // deSelected
		nextApps = "apps without resourceInfo (use kept or estimated)"
	}
	floorHC, err := yarn.HTTPClientFor(yarn.TLS{})
	if err != nil {
		return nil, err
	}
	var (
		seen            exporterCounts
		snap            cluster.Snapshot
		ex, sn, fl, all repeated
	)
	for i := range reps {
		obs := observeOnly
		if i < reps-1 {
			if obs, err = fresh(); err != nil {
				return nil, err
			}
		}
		if err := ex.add(rm.metered(func() error {
			var err error
			seen, err = exporterScrape(rm.URL)
			return err
		})); err != nil {
			return nil, fmt.Errorf("exporter scrape: %w", err)
		}
		if err := sn.add(rm.metered(func() error {
			var err error
			snap, err = obs.Observe(ctx, now)
			return err
		})); err != nil {
			return nil, fmt.Errorf("snapshot: %w", err)
		}
		if err := fl.add(rm.metered(func() error { return readDiscarded(floorHC, rm.URL, firstURIs) })); err != nil {
			return nil, fmt.Errorf("floor: %w", err)
		}
		// observe's default per-app concurrency (ObserveOptions.Concurrency).
		if err := all.add(rm.metered(func() error { return readDiscardedPhased(floorHC, rm.URL, allFirst, allListings, 8) })); err != nil {
			return nil, fmt.Errorf("every request discarded: %w", err)
		}
	}
	exM, exRM := ex.median()
	flM, flRM := fl.median()
	allM, allRM := all.median()
	snM, snRM := sn.median()
	// The same pairs with every answer pre-rendered (rendered once by a
	// priming pass with a fresh client, then served from memory): the
	// client's own cost.
	if err := rm.Prerendered(true); err != nil {
		return nil, err
	}
	prime, err := fresh()
	if err != nil {
		return nil, err
	}
	if _, err := exporterScrape(rm.URL); err != nil {
		return nil, err
	}
	if _, err := prime.Observe(ctx, now); err != nil {
		return nil, err
	}
	var exP, snP repeated
	for range reps {
		measured, err := fresh()
		if err != nil {
			return nil, err
		}
		if err := exP.add(rm.metered(func() error { _, err := exporterScrape(rm.URL); return err })); err != nil {
			return nil, err
		}
		if err := snP.add(rm.metered(func() error { _, err := measured.Observe(ctx, now); return err })); err != nil {
			return nil, err
		}
	}
	exPM, _ := exP.median()
	snPM, snPRM := snP.median()
	if err := rm.Prerendered(false); err != nil {
		return nil, err
	}

	placed := map[cluster.PlacementSource]int{}
	for _, a := range snap.RunningApps() {
		placed[a.Placement]++
	}
	label := fmt.Sprintf("%s (%d nodes, %d running apps, %d queues)", name, len(snap.Nodes), len(snap.RunningApps()), len(snap.LeafQueues()))
	// The next snapshot, 30 s later, reps times (the RM advances 30 s
	// before each): the daemon's client (node listing reused while the
	// cluster metrics say nothing changed) against one that re-reads the
	// listing every time and against the exporter's scrape, all in the
	// same round. The re-reading client takes its first snapshot now, so
	// both reuse unchanged apps' placements alike.
	rereadClient, err := yarn.New(yarn.Config{RMAddresses: []string{rm.URL}, Timeout: time.Minute, MaxResponseBytes: 1 << 30})
	if err != nil {
		return nil, err
	}
	reread := act.YARN{Client: rereadClient, NodeType: classifier.TypeOf, NodeListingMaxAge: -1}
	if _, err := reread.Observe(ctx, now); err != nil {
		return nil, fmt.Errorf("snapshot, listing re-read: %w", err)
	}
	// And one that reads apps with resourceInfo every time
	// (app_usage_max_age -1), the snapshot before lean apps reads.
	fullAppsClient, err := yarn.New(yarn.Config{RMAddresses: []string{rm.URL}, Timeout: time.Minute, MaxResponseBytes: 1 << 30})
	if err != nil {
		return nil, err
	}
	fullApps := act.YARN{Client: fullAppsClient, NodeType: classifier.TypeOf, NodeListingMaxAge: o.NodeListingMaxAge, AppUsageMaxAge: -1}
	if _, err := fullApps.Observe(ctx, now); err != nil {
		return nil, fmt.Errorf("snapshot, apps read in full: %w", err)
	}
	var nx, nxOff, nxFull, nxEx, nxFl repeated
	for i := range reps {
		if err := advance(30 * time.Second); err != nil {
			return nil, err
		}
		exporter := func() error {
			return nxEx.add(rm.metered(func() error { _, err := exporterScrape(rm.URL); return err }))
		}
		withReuse := func() error {
			return nx.add(rm.metered(func() error {
				var err error
				snap, err = observeOnly.Observe(ctx, now)
				return err
			}))
		}
		withoutReuse := func() error {
			return nxOff.add(rm.metered(func() error { _, err := reread.Observe(ctx, now); return err }))
		}
		withFullApps := func() error {
			return nxFull.add(rm.metered(func() error { _, err := fullApps.Observe(ctx, now); return err }))
		}
		floor := func() error {
			return nxFl.add(rm.metered(func() error { return readDiscarded(floorHC, rm.URL, nextURIs) }))
		}
		// Each round in another order: none always goes first after the
		// advance (the exporter did, and paid the RM's catch-up: its RM
		// CPU was 1.2-1.8x that of the first-snapshot rounds).
		order := []func() error{exporter, withReuse, withoutReuse, withFullApps, floor}
		for k := range order {
			if err := order[(i+k)%len(order)](); err != nil {
				return nil, fmt.Errorf("next snapshot: %w", err)
			}
		}
	}
	nxM, nxRM := nx.median()
	nxOffM, nxOffRM := nxOff.median()
	nxFullM, nxFullRM := nxFull.median()
	nxExM, nxExRM := nxEx.median()
	nxFlM, nxFlRM := nxFl.median()

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
	learner := &learn.HistoryLearner{Source: client, Store: store, Classifier: classifier, ClassKey: calibrate.ClassKey("tag"), RecomputeEvery: 5 * time.Minute}
	if err := learner.Refresh(); err != nil {
		return nil, err
	}
	if err := learner.Learn(ctx, snap); err != nil {
		return nil, fmt.Errorf("first ingest: %w", err)
	}
	slot := cluster.Resource{MemoryMB: 2048, VCores: 1}
	steps := &stepTimer{obs: api, learn: learner,
		dec: scaleDecider(learner, classifier)}
	loop := &sidecar.Loop{Observer: steps, Learner: steps, Decider: steps, Applier: &act.Applier{API: api, User: "yarn-sidecar"},
		Mode: act.ModeDryRun, Now: clock,
		Rules: func(s cluster.Snapshot) plan.SafetyRules {
			return plan.SafetyRules{MaxStepPercent: 10, HysteresisPercent: 2, FloorPercent: sidecar.FloorRule(s, slot, 1)}
		}}
	if err := advance(30 * time.Second); err != nil {
		return nil, err
	}
	var rep sidecar.CycleReport
	cyM, cyRM, err := rm.metered(func() error {
		var err error
		rep, err = loop.Once(ctx)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("cycle: %w", err)
	}
	cyAM := cyRM.AMRequests
	// The plan step alone, on the cycle's own decision (it is pure).
	live, err := api.SchedulerConf(ctx)
	if err != nil {
		return nil, err
	}
	planStart := time.Now()
	plan, err := plan.BuildPlan(rep.Snapshot.Time, live, rep.Snapshot.ConfVersion, rep.Decision.Targets, loop.Rules(rep.Snapshot))
	if err != nil {
		return nil, fmt.Errorf("plan: %w", err)
	}
	planT := time.Since(planStart)
	plan.SetGlobals(rep.Decision.Globals)
	plan.Priorities = rep.Decision.Priorities
	// The dry-run apply alone, on that plan (validation against the mini
	// RM included, writes recorded only).
	applier := act.Applier{API: &act.DryRunAPI{Inner: api}, User: "yarn-sidecar", Mode: act.ModeDryRun}
	applyStart := time.Now()
	if _, err := applier.Apply(ctx, plan); err != nil {
		return nil, fmt.Errorf("dry-run apply: %w", err)
	}
	applyT := time.Since(applyStart)

	ms := func(d time.Duration) string { return d.Round(time.Millisecond).String() }
	// The mini RM's share, from its own process: handler time summed over
	// requests (they overlap, so it can exceed the wall) and its CPU
	// (rendering, GC, serving) against the measure's wall time.
	rmShare := func(r rmReading, wall time.Duration) string {
		return fmt.Sprintf("RM: %d requests, %.1f MiB sent, handlers busy %s, CPU %s = %.0f%% of the wall [%s]",
			r.Requests, mib(uint64(r.Bytes)), ms(r.Busy), ms(r.CPU), 100*r.CPU.Seconds()/wall.Seconds(), r.byKind())
	}
	// CPU spent by both processes (this one's, the client's, and the
	// RM's): on a loaded machine the wall time follows it more than the
	// bytes sent.
	cpu := func(m Measured, r rmReading) string {
		return fmt.Sprintf("CPU client %s + RM %s", ms(m.CPU), ms(r.CPU))
	}
	// The client and the RM share this machine's CPUs: however well the
	// reads overlap, the measure takes at least their CPU over the CPUs,
	// and a ratio goal below that share of the baseline's wall cannot be
	// met here without spending less CPU.
	cpuRatio := func(m Measured, r rmReading, bm Measured, br rmReading) string {
		both := (m.CPU + r.CPU).Seconds()
		least := both / float64(runtime.NumCPU())
		return fmt.Sprintf("%.2f× CPU (client + RM); that CPU over this machine's %d CPUs takes at least %s, %.2f× the baseline's wall",
			both/max((bm.CPU+br.CPU).Seconds(), 1e-9), runtime.NumCPU(), ms(time.Duration(least*float64(time.Second))), least/max(bm.Wall.Seconds(), 1e-9))
	}
	rows := []Row{
		{Area: "scale", Name: fmt.Sprintf("%s: one snapshot (placement: %d by partition, %d listed, %d estimated); %s", label,
			placed[cluster.PlacementPartition], placed[cluster.PlacementListed], placed[cluster.PlacementEstimated], rmShare(snRM, snM.Wall)),
			Figure:   fmt.Sprintf("%s%s, %.0f MiB heap; %s", ms(snM.Wall), sn.spread(), mib(snM.PeakHeap), cpu(snM, snRM)),
			Baseline: fmt.Sprintf("exporter scrape %s%s, %.0f MiB; %s (%d nodes, %d apps; %s)", ms(exM.Wall), ex.spread(), mib(exM.PeakHeap), cpu(exM, exRM), seen.Nodes, seen.Apps, rmShare(exRM, exM.Wall)),
			Ratio:    fmt.Sprintf("%.2f× time, %.2f× heap; %s", snM.Wall.Seconds()/exM.Wall.Seconds(), float64(snM.PeakHeap)/float64(max(exM.PeakHeap, 1)), cpuRatio(snM, snRM, exM, exRM)),
			Goal:     "≤0.5× time, ≤1× heap"},
		floorRow(name, "one snapshot", "apps with resourceInfo (use per partition), nodes (sizes, partitions, node types), scheduler (queues)",
			rmShare(flRM, flM.Wall), fl.spread(), flM, flRM, snM, exM, exRM),
		{Area: "scale", Name: fmt.Sprintf("%s: every request of one snapshot (%d at once, then %d listings 8 at a time), read and discarded unread: the RM's and the transfer's share, no decoding; %s",
			name, len(allFirst), len(allListings), rmShare(allRM, allM.Wall)),
			Figure:   fmt.Sprintf("%s%s; CPU client %s + RM %s", ms(allM.Wall), all.spread(), ms(allM.CPU), ms(allRM.CPU)),
			Baseline: fmt.Sprintf("exporter scrape %s", ms(exM.Wall)),
			Ratio: fmt.Sprintf("%.2f× the exporter; the snapshot takes %.2f× this, the listings add %.2f× the exporter to the floor",
				allM.Wall.Seconds()/exM.Wall.Seconds(), snM.Wall.Seconds()/allM.Wall.Seconds(), (allM.Wall-flM.Wall).Seconds()/exM.Wall.Seconds()), Detail: true},
		{Area: "scale", Name: fmt.Sprintf("%s: one snapshot, every answer pre-rendered (the client's cost; %s)", name, rmShare(snPRM, snPM.Wall)),
			Figure:   fmt.Sprintf("%s%s, %.0f MiB heap", ms(snPM.Wall), snP.spread(), mib(snPM.PeakHeap)),
			Baseline: fmt.Sprintf("exporter scrape, pre-rendered: %s%s, %.0f MiB", ms(exPM.Wall), exP.spread(), mib(exPM.PeakHeap)),
			Ratio:    fmt.Sprintf("%.2f× time, %.2f× heap", snPM.Wall.Seconds()/exPM.Wall.Seconds(), float64(snPM.PeakHeap)/float64(max(exPM.PeakHeap, 1))),
			Goal:     "≤0.5× time, ≤1× heap", Detail: true}, // the client's share of the row above's goal
		{Area: "scale", Name: fmt.Sprintf("%s: the next snapshot, 30 s later (node listing reused: %v; apps read without resourceInfo, use per partition estimated for %d changed apps); %s",
			name, snap.NodesReused, usageEstimated(snap), rmShare(nxRM, nxM.Wall)),
			Figure:   fmt.Sprintf("%s%s, %.0f MiB heap; %s", ms(nxM.Wall), nx.spread(), mib(nxM.PeakHeap), cpu(nxM, nxRM)),
			Baseline: fmt.Sprintf("exporter scrape %s%s, %.0f MiB; %s", ms(nxExM.Wall), nxEx.spread(), mib(nxExM.PeakHeap), cpu(nxExM, nxExRM)),
			Ratio:    fmt.Sprintf("%.2f× time; %s", nxM.Wall.Seconds()/nxExM.Wall.Seconds(), cpuRatio(nxM, nxRM, nxExM, nxExRM)), Goal: "≤0.5× time"},
		floorRow(name, "the next snapshot", nextApps+", scheduler (queues), metrics (whether the node listing may be reused)",
			rmShare(nxFlRM, nxFlM.Wall), nxFl.spread(), nxFlM, nxFlRM, nxM, nxExM, nxExRM),
		{Area: "scale", Name: fmt.Sprintf("%s: the next snapshot re-reading the node listing every time (node_listing_max_age -1), same rounds; %s", name, rmShare(nxOffRM, nxOffM.Wall)),
			Figure:   fmt.Sprintf("%s%s, %.0f MiB heap", ms(nxOffM.Wall), nxOff.spread(), mib(nxOffM.PeakHeap)),
			Baseline: fmt.Sprintf("exporter scrape %s", ms(nxExM.Wall)),
			Ratio:    fmt.Sprintf("%.2f× time; reuse saves %.0f%%", nxOffM.Wall.Seconds()/nxExM.Wall.Seconds(), 100*(1-nxM.Wall.Seconds()/nxOffM.Wall.Seconds())), Detail: true},
		{Area: "scale", Name: fmt.Sprintf("%s: the next snapshot reading apps with resourceInfo every time (app_usage_max_age -1), same rounds; %s", name, rmShare(nxFullRM, nxFullM.Wall)),
			Figure:   fmt.Sprintf("%s%s, %.0f MiB heap; %s", ms(nxFullM.Wall), nxFull.spread(), mib(nxFullM.PeakHeap), cpu(nxFullM, nxFullRM)),
			Baseline: fmt.Sprintf("exporter scrape %s", ms(nxExM.Wall)),
			Ratio: fmt.Sprintf("%.2f× time; %s; lean apps reads save %.0f%% time, %.0f%% CPU (client + RM)", nxFullM.Wall.Seconds()/nxExM.Wall.Seconds(),
				cpuRatio(nxFullM, nxFullRM, nxExM, nxExRM), 100*(1-nxM.Wall.Seconds()/nxFullM.Wall.Seconds()),
				100*(1-(nxM.CPU+nxRM.CPU).Seconds()/max((nxFullM.CPU+nxFullRM.CPU).Seconds(), 1e-9))), Detail: true},
		{Area: "scale", Name: fmt.Sprintf("%s: one control cycle, dry-run (observe with running jobs' AMs, learn, decide, plan, apply); %s", name, rmShare(cyRM, cyM.Wall)),
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
		Ratio:    fmt.Sprintf("%.2f×", float64(cyAM)/float64(max(1, 2*mrApps))), Detail: true})
	for _, s := range []struct {
		step string
		d    time.Duration
	}{{"observe", steps.observe}, {"learn (jobs finished in 30 s)", steps.learnT}, {"read scheduler-conf", steps.conf}, {"decide", steps.d}, {"plan (alone, on the cycle's decision)", planT}, {"dry-run apply (alone, on that plan)", applyT}} {
		rows = append(rows, Row{Area: "scale", Name: fmt.Sprintf("%s: cycle step %s", name, s.step), Figure: ms(s.d),
			Ratio: fmt.Sprintf("%.0f%% of the cycle", 100*s.d.Seconds()/cyM.Wall.Seconds()), Detail: true})
	}
	return rows, nil
}

// warmCluster builds a scenario's cluster (seed 1) and runs it 30 virtual
// minutes (5 with -quick), so apps, containers and history are in flight.
func warmCluster(o Options, sc *sim.Scenario) (*sim.Cluster, error) {
	return warmClusterFor(sc, warmFor(o))
}

// warmFor is the warm-up the options ask for.
func warmFor(o Options) time.Duration {
	if o.Quick {
		return 5 * time.Minute
	}
	return 30 * time.Minute
}

// warmClusterFor builds a scenario's cluster (seed 1) and runs it warm
// virtual time.
func warmClusterFor(sc *sim.Scenario, warm time.Duration) (*sim.Cluster, error) {
	c, err := sim.NewCluster(sc, 1)
	if err != nil {
		return nil, err
	}
	c.RunUntil(c.Now().Add(warm))
	return c, nil
}

// usageEstimated counts the snapshot's apps whose use per partition was
// estimated (a lean apps read).
func usageEstimated(s cluster.Snapshot) int {
	n := 0
	for _, a := range s.Apps {
		if a.UsageEstimated {
			n++
		}
	}
	return n
}

// floorRow is a floor's row: the answers a snapshot needs, read and
// discarded (floor.go), against the exporter's scrape of the same round,
// and the share of the snapshot's time the floor is.
func floorRow(name, kind, answers, rmShare, spread string, fl Measured, flRM rmReading, snap, ex Measured, exRM rmReading) Row {
	ms := func(d time.Duration) string { return d.Round(time.Millisecond).String() }
	return Row{Area: "scale",
		Name: fmt.Sprintf("%s: floor of %s: only the answers it cannot do without — %s — fetched at once and discarded unread; left out: node labels, scheduler-conf version, container listings; %s",
			name, kind, answers, rmShare),
		Figure:   fmt.Sprintf("%s%s; CPU client %s + RM %s", ms(fl.Wall), spread, ms(fl.CPU), ms(flRM.CPU)),
		Baseline: fmt.Sprintf("exporter scrape %s; CPU client %s + RM %s", ms(ex.Wall), ms(ex.CPU), ms(exRM.CPU)),
		Ratio: fmt.Sprintf("floor: the answers a snapshot needs, read and discarded: %s = %.2f× the exporter (%.2f× CPU); the snapshot takes %.2f× the floor",
			ms(fl.Wall), fl.Wall.Seconds()/ex.Wall.Seconds(), (fl.CPU+flRM.CPU).Seconds()/max((ex.CPU+exRM.CPU).Seconds(), 1e-9), snap.Wall.Seconds()/fl.Wall.Seconds()),
		Goal: "≤0.5× the exporter, or the goal is out of reach",
		// A diagnostic of whether the snapshot's goal is reachable here;
		// the snapshot's row states the goal.
		Detail: true}
}

// scaleDecider is the daemon's decider (sidecar.NewDecider on the default
// config, the slot read from the running jobs as the daemon reads it, no
// yarn-site, the admin's capacities in memory) with 50 Monte-Carlo draws
// per job instead of 2,000, so the cycle's time is the plan's and not the
// sampler's.
func scaleDecider(learner *learn.HistoryLearner, classifier calibrate.Classifier) *sidecar.PSDecider {
	cfg, _ := sidecar.ParseConfig(nil)
	return sidecar.NewDecider(cfg, sidecar.DeciderParts{Learner: learner, Classifier: classifier,
		Sizer: &sidecar.SlotSizer{ClassOf: calibrate.ClassKey(cfg.JobClass.By).ClassOf}, Samples: 50})
}
