package main

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/experiment"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/gen"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
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
	register(Bench{Area: "heldout", Order: 58, Run: runHeldOut})
}

const (
	heldoutRunSeed   = 1
	heldoutSweepSeed = 9001
)

// clusterOutcome is one generated cluster's runs.
type clusterOutcome struct {
	seed                  int64
	info                  gen.Info
	staticName            string
	stock, static, side   experiment.Result
	worstClass            string
	worst, mean, vsStatic float64
	flipsWorst            float64
}

func runHeldOut(o Options) ([]Row, error) {
	n := o.HeldOutN
	if n == 0 {
		n = 30
	}
	seeds := gen.HeldOutSeeds(n)
	set := "held-out"
	if o.HeldOutTuning {
		seeds, set = gen.TuningSeeds(n), "tuning"
	}
	start := time.Now()
	out := make([]clusterOutcome, len(seeds))
	scs := make([]*sim.Scenario, len(seeds))
	families := make([][]experiment.NamedMutation, len(seeds))
	scores := make([][]float64, len(seeds))
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
		out[k].seed, out[k].info = s, info
		for i, f := range fam {
			tasks = append(tasks, func() error {
				r, err := experiment.RunStaticOn(sc, heldoutSweepSeed, f.Mutation)
				if err != nil {
					scores[k][i] = math.Inf(1) // jobs that never finish: rejected
					return nil
				}
				scores[k][i] = experiment.MeanCompletion(r.Jobs).Seconds()
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
	for k := range seeds {
		best := 0
		for i := range scores[k] {
			if scores[k][i] < scores[k][best] {
				best = i
			}
		}
		sc, m := scs[k], families[k][best].Mutation
		out[k].staticName = families[k][best].Name
		tasks = append(tasks,
			func() error {
				r, err := experiment.RunStaticOn(sc, heldoutRunSeed, nil)
				mu.Lock()
				out[k].stock = r
				mu.Unlock()
				return wrapCluster(out[k].seed, "stock", err)
			},
			func() error {
				r, err := experiment.RunStaticOn(sc, heldoutRunSeed, m)
				mu.Lock()
				out[k].static = r
				mu.Unlock()
				return wrapCluster(out[k].seed, "static", err)
			},
			func() error {
				r, err := experiment.RunSidecar(sc.Name, heldoutRunSeed, experiment.SidecarOptions{Scenario: sc, WarmupSeed: heldoutRunSeed + 100, MCSamples: 50})
				mu.Lock()
				out[k].side = r
				mu.Unlock()
				return wrapCluster(out[k].seed, "sidecar", err)
			})
	}
	if err := experiment.Parallel(tasks); err != nil {
		return nil, err
	}
	return heldoutRows(set, out, sweepWall, time.Since(start)), nil
}

func wrapCluster(seed int64, mode string, err error) error {
	if err != nil {
		return fmt.Errorf("generated cluster %d (%s): %w", seed, mode, err)
	}
	return nil
}

// heldoutRows turns the clusters' runs into rows: one per cluster, then
// the summary.
func heldoutRows(set string, out []clusterOutcome, sweep, wall time.Duration) []Row {
	var rows []Row
	area := "heldout"
	over5, over2 := 0, 0
	var meanStock, meanStatic, worstFlips, meanFlips float64
	var worstAll []float64
	for k := range out {
		c := &out[k]
		c.worst, c.worstClass = 0, ""
		for _, class := range experiment.ClassesOf([]experiment.Result{c.stock}) {
			st, sd := meanClassTime(c.stock, class), meanClassTime(c.side, class)
			if math.IsNaN(st) || math.IsNaN(sd) || st == 0 {
				continue
			}
			if r := sd / st; r > c.worst {
				c.worst, c.worstClass = r, class
			}
		}
		side := meanJobTime(c.side).Seconds()
		c.mean = side / meanJobTime(c.stock).Seconds()
		c.vsStatic = side / meanJobTime(c.static).Seconds()
		w, m := c.side.ReversalsPerQueueHour()
		c.flipsWorst = w
		worstFlips = math.Max(worstFlips, w)
		meanFlips += m / float64(len(out))
		if c.worst > 1.05 {
			over5++
		}
		if c.worst > 1.02 {
			over2++
		}
		meanStock += c.mean / float64(len(out))
		meanStatic += c.vsStatic / float64(len(out))
		worstAll = append(worstAll, c.worst)
		rows = append(rows, Row{Area: area, Name: fmt.Sprintf("%s cluster %d (%s): worst class [%s] vs stock; mean vs stock, vs best static [%s]; reversals per queue-hour (worst queue)",
			set, c.seed, c.info, c.worstClass, c.staticName),
			Figure: fmt.Sprintf("%.2f×", c.worst), Baseline: fmt.Sprintf("mean %.2f× stock, %.2f× static; %.1f rev/q/h; %d applied", c.mean, c.vsStatic, w, c.side.Applied),
			Goal: "worst ≤1.05× (≤1.02× in 90%)"})
	}
	n := len(out)
	sort.Float64s(worstAll)
	var ws []string
	for _, w := range worstAll {
		ws = append(ws, fmt.Sprintf("%.2f", w))
	}
	rows = append(rows,
		Row{Area: area, Name: fmt.Sprintf("%s set (%d clusters): clusters with a class >5%% slower than stock (mean completion)", set, n),
			Figure: fmt.Sprintf("%d/%d", over5, n), Goal: "0"},
		Row{Area: area, Name: fmt.Sprintf("%s set (%d clusters): clusters with a class >2%% slower than stock", set, n),
			Figure: fmt.Sprintf("%d/%d", over2, n), Ratio: fmt.Sprintf("%.0f%% none", 100*float64(n-over2)/float64(n)), Goal: "≥90% none"},
		Row{Area: area, Name: fmt.Sprintf("%s set (%d clusters): mean over clusters of mean completion, sidecar vs stock", set, n),
			Figure: fmt.Sprintf("%.3f×", meanStock), Goal: "≤0.85×"},
		Row{Area: area, Name: fmt.Sprintf("%s set (%d clusters): mean over clusters of mean completion, sidecar vs best static", set, n),
			Figure: fmt.Sprintf("%.3f×", meanStatic), Goal: "≤1.00×"},
		Row{Area: area, Name: fmt.Sprintf("%s set (%d clusters): worst class vs stock per cluster, sorted", set, n),
			Figure: strings.Join(ws, " ")},
		Row{Area: area, Name: fmt.Sprintf("%s set (%d clusters): reversals per queue per hour, worst queue of any cluster (mean over changed queues)", set, n),
			Figure: fmt.Sprintf("%.2f", worstFlips), Baseline: fmt.Sprintf("mean %.2f", meanFlips), Goal: "≤1"},
		Row{Area: area, Name: fmt.Sprintf("%s set (%d clusters): wall time (sweep %s)", set, n, sweep.Round(time.Second)),
			Figure: wall.Round(time.Second).String()},
	)
	return rows
}
