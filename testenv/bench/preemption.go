package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/experiment"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
)

// The preemption benchmark (issue 16): lee-toy and hetero-100 on a cluster
// whose RM preempts (ProportionalCapacityPreemptionPolicy with Hadoop's
// defaults) and whose MapReduce jobs speculate (Hadoop's default), run
// three ways in the same process on the same seeds: stock (the scenario's
// static queues, the sidecar observing in dry-run mode so PS is measured
// the same way), the sidecar with its safe default
// (preemption.max_lost_work_per_cycle bounds each cycle's cut), and the
// sidecar allowed to use preemption on purpose.
func init() {
	// Rows: lee-toy 6, hetero-100 4, shield-return 4.
	register(Bench{Area: "preemption", Order: 55, Run: runPreemption, Rows: 14})
}

// withPreemption is a scenario as an admin would switch preemption and
// speculation on: yarn-site's monitor with the policy's defaults, and
// mapred-site's mapreduce.map.speculative.
func withPreemption(name string) (*sim.Scenario, error) {
	base, err := sim.LoadScenario(name)
	if err != nil {
		return nil, err
	}
	sc := *base
	sc.YarnSite = map[string]string{
		sim.PreemptionEnable:                              "true",
		"yarn.resourcemanager.scheduler.monitor.policies": "org.apache.hadoop.yarn.server.resourcemanager.monitor.capacity.ProportionalCapacityPreemptionPolicy",
	}
	if name == "lee-toy" {
		// Three nodes, 4 GB containers: the default round allowance (0.1 ×
		// 28 GB = 2.8 GB) never fits one container, so the policy would
		// never act; the admin of so small a cluster raises it.
		sc.YarnSite[sim.PreemptionPerRound] = "0.2"
	}
	sc.MapredSite = map[string]string{"mapreduce.map.speculative": "true"}
	return &sc, nil
}

type preemptionRuns struct{ stock, safe, purpose []experiment.Result }

func runPreemption(o Options) ([]Row, error) {
	var rows []Row
	for _, name := range []string{"lee-toy", "hetero-100"} {
		seeds := make([]int64, o.Seeds)
		for i := range seeds {
			seeds[i] = int64(i + 1)
		}
		if o.Quick && len(seeds) > 2 {
			seeds = seeds[:2]
		}
		start := time.Now()
		sc, err := withPreemption(name)
		if err != nil {
			return nil, err
		}
		runs := preemptionRuns{stock: make([]experiment.Result, len(seeds)), safe: make([]experiment.Result, len(seeds)),
			purpose: make([]experiment.Result, len(seeds))}
		var tasks []func() error
		for k, s := range seeds {
			run := func(into []experiment.Result, mode act.Mode, onPurpose bool) func() error {
				return func() error {
					cfg, _ := sidecar.ParseConfig(nil)
					cfg.Mode = mode
					cfg.Preemption.OnPurpose = onPurpose
					r, err := experiment.RunSidecar(name, s, experiment.SidecarOptions{WarmupSeed: s + 100, Config: cfg, MCSamples: 50, Scenario: sc})
					into[k] = r
					return err
				}
			}
			tasks = append(tasks, run(runs.stock, act.ModeDryRun, false), run(runs.safe, act.ModeApply, false),
				run(runs.purpose, act.ModeApply, true))
		}
		if err := experiment.Parallel(tasks); err != nil {
			return nil, fmt.Errorf("%s with preemption: %w", name, err)
		}
		rows = append(rows, preemptionRows(name, runs)...)
		rows = append(rows, Row{Area: "preemption", Name: fmt.Sprintf("%s: wall time of %d seeds × (stock, safe, on purpose)", name, len(seeds)),
			Figure: time.Since(start).Round(time.Second).String(), Detail: true})
	}
	sr, err := shieldRows(o)
	if err != nil {
		return nil, err
	}
	return append(rows, sr...), nil
}

// lostPerHour is the container-seconds of work preemption threw away per
// hour of the run (speculative losers are counted apart).
func lostPerHour(r experiment.Result) float64 {
	if r.Makespan <= 0 {
		return 0
	}
	return r.PreemptedSecs / r.Makespan.Hours()
}

func preemptionRows(name string, runs preemptionRuns) []Row {
	var rows []Row
	n := len(runs.stock)
	row := func(what, fig, base, ratio, goal string) {
		rows = append(rows, Row{Area: "preemption", Name: fmt.Sprintf("%s+preemption (%d seeds): %s", name, n, what), Figure: fig, Baseline: base, Ratio: ratio, Goal: goal})
	}
	// detail is a row printed only with -candidates (a breakdown, or a
	// figure no goal reads).
	detail := func(what, fig, base, ratio, goal string) {
		row(what, fig, base, ratio, goal)
		rows[len(rows)-1].Detail = true
	}
	modes := []struct {
		label string
		rs    []experiment.Result
	}{{"sidecar safe", runs.safe}, {"sidecar on purpose", runs.purpose}}
	if name == "lee-toy" {
		share := func(rs []experiment.Result) float64 {
			v := 0.0
			for _, r := range rs {
				s, b, _ := psStats(r, 2)
				if b > 0 {
					v += s / b / float64(len(rs))
				}
			}
			return v
		}
		for _, m := range modes {
			row("ΣPS while both jobs run, share of its bound, "+m.label+" vs stock", fmt.Sprintf("%.1f%%", 100*share(m.rs)),
				fmt.Sprintf("%.1f%%", 100*share(runs.stock)), "", "≥95% (78% without preemption)")
		}
		for _, m := range modes { // usable.go: the same ΣPS over the slots a map can take
			detail("ΣPS while both jobs run, share of the usable-capacity bound, "+m.label+" vs stock", fmt.Sprintf("%.1f%%", 100*meanUsableShare(m.rs)),
				fmt.Sprintf("%.1f%%", 100*meanUsableShare(runs.stock)), "", "")
		}
	}
	stockLost := meanOver(runs.stock, lostPerHour)
	detail("container-s of work lost to preemption per hour, stock", fmt.Sprintf("%.0f", stockLost), "", "", "")
	for _, m := range modes {
		v := meanOver(m.rs, lostPerHour)
		ratio := ""
		if stockLost > 0 {
			ratio = fmt.Sprintf("%.2f×", v/stockLost)
		}
		goal := ""
		if m.label == "sidecar safe" {
			goal = "≤ stock"
		}
		if goal == "" {
			detail("container-s of work lost to preemption per hour, "+m.label, fmt.Sprintf("%.0f", v), fmt.Sprintf("%.0f", stockLost), ratio, goal)
			continue
		}
		row("container-s of work lost to preemption per hour, "+m.label, fmt.Sprintf("%.0f", v), fmt.Sprintf("%.0f", stockLost), ratio, goal)
	}
	spec := func(rs []experiment.Result) string {
		k := meanOver(rs, func(r experiment.Result) float64 { return float64(r.SpecKilled) })
		s := meanOver(rs, func(r experiment.Result) float64 { return r.SpecKilledSec })
		p := meanOver(rs, func(r experiment.Result) float64 { return float64(r.Preempted) })
		return fmt.Sprintf("%.0f preempted, %.0f speculative losers (%.0f container-s)", p, k, s)
	}
	detail("containers killed per run, stock / safe / on purpose", spec(runs.stock)+" / "+spec(runs.safe)+" / "+spec(runs.purpose), "", "", "")
	for _, m := range modes {
		f := func(r experiment.Result) float64 { return meanJobTime(r).Seconds() }
		detail("mean job completion, "+m.label+" vs stock", dur(meanOver(m.rs, f)), dur(meanOver(runs.stock, f)),
			fmt.Sprintf("%.2f×", meanOver(m.rs, f)/meanOver(runs.stock, f)), "")
		var slower []string
		for _, class := range classesOf(runs.stock[0]) {
			cf := func(r experiment.Result) float64 { return meanClassTime(r, class) }
			st, sd := meanOver(runs.stock, cf), meanOver(m.rs, cf)
			if sd > 1.02*st {
				slower = append(slower, fmt.Sprintf("%s %.2f×", class, sd/st))
			}
			if len(classesOf(runs.stock[0])) <= 4 {
				detail(fmt.Sprintf("mean %s completion, %s vs stock", class, m.label), dur(sd), dur(st), fmt.Sprintf("%.2f×", sd/st), "")
			}
		}
		row("classes >2% slower than stock, "+m.label, fmt.Sprintf("%d %s", len(slower), strings.Join(slower, ", ")), "", "", "0")
	}
	row("reversals per queue per hour, worst queue of any seed (mean over changed queues): sidecar safe; on purpose", reversalFigure(runs.safe)+"; "+reversalFigure(runs.purpose), "", "", "≤1")
	return rows
}
