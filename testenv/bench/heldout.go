package main

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/experiment"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/gen"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// The held-out rows (issue 32): the sidecar, stock and the sweep's best
// static configuration on generated clusters nobody tuned for
// (testenv/gen). The clusters are fixed by their seeds: gen.HeldOutSeeds
// are reported, gen.TuningSeeds (-heldout-tuning) are the ones a change
// may be tuned on. Per cluster: the worst class's mean completion against
// stock, the mean against stock and against the best static; then how many
// clusters have a class more than 5% / 2% slower than stock and the means
// over clusters. One run seed per cluster (heldoutRunSeed; its warm-up
// day heldoutRunSeed+100), the sweep on another (heldoutSweepSeed), so the
// static configuration never sees the run it is judged on.
func init() {
	// Rows: the summary: >5%, >2% (each beside what chance alone gives), means vs stock and best static, each cluster's ratios, reversals.
	register(Bench{Area: "heldout", Order: 58, Run: runHeldOut, Rows: 7})
}

// heldoutSweepSeed is the sweep's run seed; heldoutRunSeed the judged
// runs' (-heldout-run-seed: the same clusters under other arrivals and
// task times, to see how much of a difference between two builds is the
// run's noise).
const heldoutSweepSeed = 9001

// heldoutHeartbeatOffset is the node heartbeat order's shift in the stock
// run that measures chance alone: the same luck (the mini cluster draws it
// per task, so the sidecar's runs share it with stock's), another order of
// offers, so the jobs' containers land otherwise from the first second.
const heldoutHeartbeatOffset = 1

var heldoutRunSeed int64 = 1

// clusterOutcome is one generated cluster's runs.
type clusterOutcome struct {
	seed                int64
	info                gen.Info
	staticName          string
	stock, static, side experiment.Result
	// locality is stock with the one scheduler-wide property the sidecar
	// writes at its start (rack-locality-full-reset=false): how much of the
	// sidecar's figure a static one-line change gives.
	locality experiment.Result
	// chance is stock again on the same jobs and luck with the nodes'
	// heartbeat order shifted (sim.Scenario.HeartbeatOffset): how far a
	// class mean moves when the run's scheduling order alone changes, the
	// noise floor of the harm figures (the sidecar's run shares stock's
	// luck and changes its order).
	chance experiment.Result
	off    *experiment.Result // the unguarded sidecar (-heldout-unguarded)
	// ablated are the sidecar runs without one decide step each, by the
	// step's name (-heldout-ablate, heldout_ablate.go).
	ablated map[string]experiment.Result
	// replay is the replay-chosen static configuration's runs, pooled
	// (-heldout-replay, heldout_replay.go); replayName the member chosen.
	replay     *experiment.Result
	replayName string
	// safe is the best static configuration of the sweep that slows no
	// class more than 2% against stock on the sweep's run (the best static
	// an admin who would harm no team picks); safeName its name. It is
	// the static one when that one is harmless.
	safe     experiment.Result
	safeName string
}

func runHeldOut(o Options) ([]Row, error) {
	n := o.HeldOutN
	if n == 0 {
		n = 30
	}
	ablate, err := ablateNames(o.HeldOutAblate)
	if err != nil {
		return nil, err
	}
	if (len(ablate) > 0 || o.HeldOutUnguarded) && o.HeldOutRuns > 1 {
		return nil, fmt.Errorf("-heldout-ablate and -heldout-unguarded run one run seed per cluster; use them without -heldout-runs")
	}
	if o.HeldOutSkip < 0 || (o.HeldOutSkip > 0 && !o.HeldOutTuning) {
		return nil, fmt.Errorf("-heldout-skip %d: skips tuning clusters, so it needs -heldout-tuning and a count ≥ 0", o.HeldOutSkip)
	}
	seeds := gen.HeldOutSeeds(n)
	set := "held-out"
	if o.HeldOutTuning {
		seeds, set = gen.TuningSeedsAfter(o.HeldOutSkip, n), "tuning"
	}
	start := time.Now()
	out := make([]clusterOutcome, len(seeds))
	scs := make([]*sim.Scenario, len(seeds))
	families := make([][]experiment.NamedMutation, len(seeds))
	scores := make([][]float64, len(seeds))
	// classMeans are each candidate's class means on the sweep's run.
	classMeans := make([][]map[string]float64, len(seeds))
	var tasks []func() error
	for k, s := range seeds {
		sc, info, err := gen.Generate(s, gen.Options{})
		if err != nil {
			return nil, err
		}
		fam, err := treeFamily(sc)
		if err != nil {
			return nil, fmt.Errorf("cluster %d: %w", s, err)
		}
		scs[k], families[k], scores[k] = sc, fam, make([]float64, len(fam))
		classMeans[k] = make([]map[string]float64, len(fam))
		out[k].seed, out[k].info = s, info
		for i, f := range fam {
			tasks = append(tasks, func() error {
				r, err := experiment.RunStaticOn(sc, heldoutSweepSeed, f.Mutation)
				if err != nil {
					scores[k][i] = math.Inf(1) // jobs that never finish: rejected
					return nil
				}
				scores[k][i] = experiment.MeanCompletion(r.Jobs).Seconds()
				classMeans[k][i] = classMeansOf(r)
				return nil
			})
		}
	}
	if err := experiment.Parallel(tasks); err != nil {
		return nil, err
	}
	sweepWall := time.Since(start)
	tasks = nil
	var mu sync.Mutex
	// runs are each cluster's judged runs, one per run seed.
	type judgedRuns struct{ stock, static, safe, locality, chance, side []experiment.Result }
	runs := make([]judgedRuns, len(seeds))
	for k := range seeds {
		best := 0
		for i := range scores[k] {
			if scores[k][i] < scores[k][best] {
				best = i
			}
		}
		sc, m := scs[k], families[k][best].Mutation
		out[k].staticName = families[k][best].Name
		safe := bestHarmless(scores[k], classMeans[k])
		out[k].safeName = families[k][safe].Name
		// Each judged run under every run seed; pooled per cluster below.
		for r := range max(1, o.HeldOutRuns) {
			seed := heldoutRunSeed + int64(r)
			add := func(mode string, dst *[]experiment.Result, run func() (experiment.Result, error)) {
				tasks = append(tasks, func() error {
					res, err := run()
					mu.Lock()
					*dst = append(*dst, res)
					mu.Unlock()
					return wrapCluster(out[k].seed, mode, err)
				})
			}
			add("stock", &runs[k].stock, func() (experiment.Result, error) { return experiment.RunStaticOn(sc, seed, nil) })
			add("static", &runs[k].static, func() (experiment.Result, error) { return experiment.RunStaticOn(sc, seed, m) })
			if safe != best {
				sm := families[k][safe].Mutation
				add("harmless static", &runs[k].safe, func() (experiment.Result, error) { return experiment.RunStaticOn(sc, seed, sm) })
			}
			add("stock, other heartbeat order", &runs[k].chance, func() (experiment.Result, error) {
				other := *sc
				other.HeartbeatOffset = heldoutHeartbeatOffset
				return experiment.RunStaticOn(&other, seed, nil)
			})
			add("locality switch", &runs[k].locality, func() (experiment.Result, error) {
				to := schedconf.Conf(sc.Conf).Clone()
				to[schedconf.Prefix+"rack-locality-full-reset"] = "false"
				lm := schedconf.Diff(schedconf.Conf(sc.Conf), to)
				return experiment.RunStaticOn(sc, seed, &lm)
			})
			add("sidecar", &runs[k].side, func() (experiment.Result, error) {
				opts := experiment.SidecarOptions{Scenario: sc, WarmupSeed: seed + 100, MCSamples: 50, Strategy: o.HeldOutStrategy}
				if o.HeldOutLabels {
					cfg, _ := sidecar.ParseConfig(nil)
					cfg.Mode = act.ModeApply
					cfg.Safety.AllowNodeLabelChanges = true
					opts.Config = cfg
				}
				return experiment.RunSidecar(sc.Name, seed, opts)
			})
		}
		tasks = append(tasks, ablateTasks(out, k, sc, ablate, func(f func()) { mu.Lock(); f(); mu.Unlock() })...)
		if o.HeldOutReplay {
			fam := families[k]
			tasks = append(tasks, func() error {
				warm, err := experiment.RunStaticOn(sc, heldoutRunSeed+100, nil)
				if err != nil {
					return wrapCluster(out[k].seed, "replay warm-up", err)
				}
				i, why, err := replayChoose(sc, fam, warm)
				if err != nil {
					return wrapCluster(out[k].seed, "replay", err)
				}
				to := schedconf.Conf(sc.Conf).Clone()
				to[schedconf.Prefix+"rack-locality-full-reset"] = "false"
				chosen := schedconf.Diff(schedconf.Conf(sc.Conf), to)
				name := "the locality line only (" + why + ")"
				if i >= 0 {
					chosen, name = *fam[i].Mutation, fam[i].Name+" ("+why+")"
				}
				var rs []experiment.Result
				for r := range max(1, o.HeldOutRuns) {
					res, err := experiment.RunStaticOn(sc, heldoutRunSeed+int64(r), &chosen)
					if err != nil {
						return wrapCluster(out[k].seed, "replay-chosen static", err)
					}
					rs = append(rs, res)
				}
				p := pooled(rs)
				mu.Lock()
				out[k].replay, out[k].replayName = &p, name
				mu.Unlock()
				return nil
			})
		}
		if o.HeldOutUnguarded {
			tasks = append(tasks, func() error {
				cfg, _ := sidecar.ParseConfig(nil)
				cfg.Mode = act.ModeApply
				unguarded(cfg)
				r, err := experiment.RunSidecar(sc.Name, heldoutRunSeed, experiment.SidecarOptions{Scenario: sc, WarmupSeed: heldoutRunSeed + 100, MCSamples: 50, Config: cfg})
				mu.Lock()
				out[k].off = &r
				mu.Unlock()
				return wrapCluster(out[k].seed, "unguarded sidecar", err)
			})
		}
	}
	if err := experiment.Parallel(tasks); err != nil {
		return nil, err
	}
	for k := range out {
		out[k].stock, out[k].static = pooled(runs[k].stock), pooled(runs[k].static)
		out[k].safe = out[k].static
		if len(runs[k].safe) > 0 {
			out[k].safe = pooled(runs[k].safe)
		}
		out[k].locality, out[k].side = pooled(runs[k].locality), pooled(runs[k].side)
		out[k].chance = pooled(runs[k].chance)
	}
	return append(heldoutRows(set, out, sweepWall, time.Since(start)), ablateRows(set, out, ablate)...), nil
}

// bestHarmless is the sweep's best candidate (index into the family, whose
// first member is stock) among those that slow no class more than 2%
// against stock on the sweep's run; stock itself when none is harmless.
func bestHarmless(scores []float64, classMeans []map[string]float64) int {
	best := 0
	for i := range scores {
		if math.IsInf(scores[i], 1) || classMeans[i] == nil || scores[i] >= scores[best] {
			continue
		}
		harmless := true
		for class, st := range classMeans[0] {
			if v, ok := classMeans[i][class]; ok && v > st*1.02 {
				harmless = false
			}
		}
		if harmless {
			best = i
		}
	}
	return best
}

// classMeansOf is each class's mean completion in seconds.
func classMeansOf(r experiment.Result) map[string]float64 {
	out := map[string]float64{}
	for _, c := range experiment.ClassesOf([]experiment.Result{r}) {
		out[c] = meanClassTime(r, c)
	}
	return out
}

// pooled is one cluster's runs under several run seeds as one result: the
// jobs of all (a class's mean completion is over every run's jobs, so
// "slower on average" is over runs as well as jobs), plans applied and
// reversals summed over the summed makespans (per queue-hour over all).
func pooled(rs []experiment.Result) experiment.Result {
	if len(rs) == 1 {
		return rs[0]
	}
	var out experiment.Result
	out.Reversals = map[string]int{}
	for _, r := range rs {
		out.Scenario, out.Mode = r.Scenario, r.Mode
		out.Jobs = append(out.Jobs, r.Jobs...)
		out.Applied += r.Applied
		out.Cycles += r.Cycles
		out.Makespan += max(r.Makespan, time.Hour) // ReversalsPerQueueHour counts a shorter run as an hour
		for q, n := range r.Reversals {
			out.Reversals[q] += n
		}
		out.ChangedQueues = max(out.ChangedQueues, r.ChangedQueues)
	}
	return out
}

// unguarded is the sidecar without issue 32's guards: no do-no-harm
// check, no bound on calibration's exposure, no flap guard.
func unguarded(cfg *sidecar.Config) {
	cfg.Safety.HarmMarginPercent = -1
	cfg.Safety.CalibrationMaxContainers = math.MaxInt32
	cfg.Rate.FlapWindow = -1
	cfg.Rate.ReversalHold = -1
}

func wrapCluster(seed int64, mode string, err error) error {
	if err != nil {
		return fmt.Errorf("generated cluster %d (%s): %w", seed, mode, err)
	}
	return nil
}

// judged is one sidecar variant's figures on one cluster.
type judged struct {
	worst, mean, vsStatic float64
	worstClass            string
	flips, flipsMean      float64
	applied               int
}

func judge(c *clusterOutcome, side experiment.Result) judged {
	j := judged{}
	for _, class := range experiment.ClassesOf([]experiment.Result{c.stock}) {
		st, sd := meanClassTime(c.stock, class), meanClassTime(side, class)
		if math.IsNaN(st) || math.IsNaN(sd) || st == 0 {
			continue
		}
		if r := sd / st; r > j.worst {
			j.worst, j.worstClass = r, class
		}
	}
	m := meanJobTime(side).Seconds()
	j.mean = m / meanJobTime(c.stock).Seconds()
	j.vsStatic = m / meanJobTime(c.static).Seconds()
	j.flips, j.flipsMean = side.ReversalsPerQueueHour()
	j.applied = side.Applied
	return j
}

// summary is a variant's figures over the clusters.
type summary struct {
	over5, over2          int
	meanStock, meanStatic float64
	worstFlips, meanFlips float64
	worsts                []float64
}

func summarize(js []judged) summary {
	var s summary
	n := float64(len(js))
	for _, j := range js {
		if j.worst > 1.05 {
			s.over5++
		}
		if j.worst > 1.02 {
			s.over2++
		}
		s.meanStock += j.mean / n
		s.meanStatic += j.vsStatic / n
		s.worstFlips = math.Max(s.worstFlips, j.flips)
		s.meanFlips += j.flipsMean / n
		s.worsts = append(s.worsts, j.worst)
	}
	sort.Float64s(s.worsts)
	return s
}

// heldoutRows turns the clusters' runs into rows: one per cluster, then
// the summary (with the unguarded sidecar's as the baseline when run).
func heldoutRows(set string, out []clusterOutcome, sweep, wall time.Duration) []Row {
	var rows []Row
	area := "heldout"
	var on, off []judged
	for k := range out {
		c := &out[k]
		j := judge(c, c.side)
		on = append(on, j)
		base := ""
		if c.off != nil {
			u := judge(c, *c.off)
			off = append(off, u)
			base = fmt.Sprintf("unguarded: worst %.2f× [%s], mean %.2f× stock, %.2f× static, %.1f rev/q/h; ", u.worst, u.worstClass, u.mean, u.vsStatic, u.flips)
		}
		rows = append(rows, Row{Area: area, Name: fmt.Sprintf("%s cluster %d (%s): worst class vs stock [class]; mean vs stock, vs best static [%s]; reversals per queue-hour (worst queue); plans applied",
			set, c.seed, c.info, c.staticName),
			Figure:   fmt.Sprintf("%.2f× [%s]; mean %.2f× stock, %.2f× static; %.1f rev/q/h; %d applied", j.worst, j.worstClass, j.mean, j.vsStatic, j.flips, j.applied),
			Baseline: strings.TrimSuffix(base, "; "),
			Goal:     "worst ≤1.05× (≤1.02× in 90%)", Detail: true})
	}
	n := len(out)
	s := summarize(on)
	var loc []judged
	for k := range out {
		loc = append(loc, judge(&out[k], out[k].locality))
	}
	ls := summarize(loc)
	var byChance []judged
	for k := range out {
		byChance = append(byChance, judge(&out[k], out[k].chance))
	}
	lk := summarize(byChance)
	var stat []judged
	for k := range out {
		stat = append(stat, judge(&out[k], out[k].static))
	}
	ss := summarize(stat)
	// The sidecar against the best static that harms no class on the
	// sweep's run, and that configuration judged as the sidecar is.
	var vsSafe float64
	var safeJ []judged
	for k := range out {
		vsSafe += meanJobTime(out[k].side).Seconds() / meanJobTime(out[k].safe).Seconds() / float64(n)
		safeJ = append(safeJ, judge(&out[k], out[k].safe))
	}
	sh := summarize(safeJ)
	var rep []judged
	for k := range out {
		if out[k].replay != nil {
			rep = append(rep, judge(&out[k], *out[k].replay))
		}
	}
	var u *summary
	if len(off) == n {
		x := summarize(off)
		u = &x
	}
	b := func(f func(summary) string) string {
		if u == nil {
			return ""
		}
		return "unguarded " + f(*u)
	}
	// chance is what stock against stock in another heartbeat order gives
	// for the same count: a sidecar's figure at or under it is not told
	// from chance.
	chance := func(k int) string {
		return fmt.Sprintf("chance alone (stock vs stock, other heartbeat order) %d/%d", k, n)
	}
	list := func(xs []float64) string {
		var ws []string
		for _, w := range xs {
			ws = append(ws, fmt.Sprintf("%.2f", w))
		}
		return strings.Join(ws, " ")
	}
	rows = append(rows,
		Row{Area: area, Name: fmt.Sprintf("%s set (%d clusters): clusters with a class >5%% slower than stock (mean completion)", set, n),
			Figure: fmt.Sprintf("%d/%d", s.over5, n), Baseline: chance(lk.over5) + b(func(x summary) string { return fmt.Sprintf("; %d/%d", x.over5, n) }), Goal: "0"},
		Row{Area: area, Name: fmt.Sprintf("%s set (%d clusters): clusters with a class >2%% slower than stock", set, n),
			Figure: fmt.Sprintf("%d/%d", s.over2, n), Baseline: chance(lk.over2) + b(func(x summary) string { return fmt.Sprintf("; %d/%d", x.over2, n) }),
			Ratio: fmt.Sprintf("%.0f%% none", 100*float64(n-s.over2)/float64(n)), Goal: "≥90% none"},
		Row{Area: area, Name: fmt.Sprintf("%s set (%d clusters): mean over clusters of mean completion, sidecar vs stock", set, n),
			Figure: fmt.Sprintf("%.3f×", s.meanStock), Baseline: b(func(x summary) string { return fmt.Sprintf("%.3f×", x.meanStock) }), Goal: "≤0.85×"},
		Row{Area: area, Name: fmt.Sprintf("%s set (%d clusters): mean over clusters of mean completion, sidecar vs best static", set, n),
			Figure: fmt.Sprintf("%.3f×", s.meanStatic), Baseline: b(func(x summary) string { return fmt.Sprintf("%.3f×", x.meanStatic) }), Goal: "≤1.00×"},
		Row{Area: area, Name: fmt.Sprintf("%s set (%d clusters): worst class vs stock per cluster, sorted", set, n),
			Figure: list(s.worsts), Baseline: b(func(x summary) string { return list(x.worsts) }), Detail: true},
		Row{Area: area, Name: fmt.Sprintf("%s set (%d clusters): per cluster, worst class vs stock; mean completion, sidecar vs stock / vs best static (cluster seed: ratios; the per-cluster rows with -candidates)", set, n),
			Figure: perCluster(out, on)},
		Row{Area: area, Name: fmt.Sprintf("%s set (%d clusters): chance alone, the harm figures' noise floor: stock against stock on the same jobs and luck with the nodes' heartbeat order shifted (sim.Scenario.HeartbeatOffset), judged as the sidecar is: clusters with a class >5%% / >2%% slower; worst class per cluster, sorted", set, n),
			Figure: fmt.Sprintf("%d/%d; %d/%d; %s", lk.over5, n, lk.over2, n, list(lk.worsts)), Detail: true},
		Row{Area: area, Name: fmt.Sprintf("%s set (%d clusters): stock with only rack-locality-full-reset=false (which the sidecar writes at its start): clusters with a class >5%% / >2%% slower than stock; mean over clusters vs stock", set, n),
			Figure: fmt.Sprintf("%d/%d; %d/%d; %.3f×", ls.over5, n, ls.over2, n, ls.meanStock)},
		Row{Area: area, Name: fmt.Sprintf("%s set (%d clusters): the best static configuration judged as the sidecar is: clusters with a class >5%% / >2%% slower than stock; mean over clusters vs stock; worst class per cluster, sorted", set, n),
			Figure: fmt.Sprintf("%d/%d; %d/%d; %.3f×; %s", ss.over5, n, ss.over2, n, ss.meanStock, list(ss.worsts)), Detail: true},
		Row{Area: area, Name: fmt.Sprintf("%s set (%d clusters): the best static configuration that slows no class >2%% on the sweep's run: mean over clusters, sidecar vs it; it judged as the sidecar is (clusters >5%% / >2%%, mean vs stock); clusters where it is not the best static", set, n),
			Figure: fmt.Sprintf("%.3f×; %d/%d; %d/%d; %.3f×; %s", vsSafe, sh.over5, n, sh.over2, n, sh.meanStock, safeNames(out)), Detail: true},
	)
	if len(rep) == n {
		rs := summarize(rep)
		rows = append(rows, Row{Area: area, Name: fmt.Sprintf("%s set (%d clusters): the replay-chosen static configuration (candidate; heldout_replay.go): clusters with a class >5%% / >2%% slower than stock; mean over clusters vs stock; vs best static; worst class per cluster, sorted", set, n),
			Figure: fmt.Sprintf("%d/%d; %d/%d; %.3f×; %.3f×; %s", rs.over5, n, rs.over2, n, rs.meanStock, rs.meanStatic, list(rs.worsts)), Detail: true},
			Row{Area: area, Name: fmt.Sprintf("%s set (%d clusters): the replay's choice per cluster", set, n), Figure: replayNames(out), Detail: true})
	}
	rows = append(rows,
		Row{Area: area, Name: fmt.Sprintf("%s set (%d clusters): reversals per queue per hour, worst queue of any cluster (mean over changed queues)", set, n),
			Figure: fmt.Sprintf("%.2f (mean %.2f)", s.worstFlips, s.meanFlips), Baseline: b(func(x summary) string { return fmt.Sprintf("%.2f (mean %.2f)", x.worstFlips, x.meanFlips) }), Goal: "≤1"},
		Row{Area: area, Name: fmt.Sprintf("%s set (%d clusters): wall time (sweep %s)", set, n, sweep.Round(time.Second)),
			Figure: wall.Round(time.Second).String(), Detail: true},
	)
	return rows
}

// safeNames lists the clusters whose harmless best static is not the best
// static, with its name.
func safeNames(out []clusterOutcome) string {
	var parts []string
	for _, c := range out {
		if c.safeName != c.staticName {
			parts = append(parts, fmt.Sprintf("%d: %s", c.seed, c.safeName))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// perCluster lists each cluster's mean vs stock and vs best static, in
// one cell: the issue asks for each cluster's ratio, one row per goal.
func perCluster(out []clusterOutcome, js []judged) string {
	var parts []string
	for k, j := range js {
		parts = append(parts, fmt.Sprintf("%d: %.2f; %.2f/%.2f", out[k].seed, j.worst, j.mean, j.vsStatic))
	}
	return strings.Join(parts, ", ")
}
