package main

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/experiment"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
)

// The trees benchmark (issue 15): a nested tree in weight mode — sidecar vs
// stock vs the best static configuration of a sweep written in the tree's
// own mode; the same tree in percentage and absolute mode; for every
// steering scenario, mutations per hour and guarantees written outside
// their band; and on hetero-100 and fb-2009, the share of the unbounded
// sidecar's gain the default band and rate limit keep. Baselines are
// measured in the same run.
func init() {
	register(Bench{Area: "trees", Order: 55, Run: runTrees, Rows: 9})
}

func runTrees(o Options) ([]Row, error) {
	seeds := make([]int64, o.Seeds)
	for i := range seeds {
		seeds[i] = int64(i + 1)
	}
	if o.Quick && len(seeds) > 2 {
		seeds = seeds[:2]
	}
	var rows []Row
	row := func(name, fig, base, ratio, goal string) {
		rows = append(rows, Row{Area: "trees", Name: name, Figure: fig, Baseline: base, Ratio: ratio, Goal: goal})
	}
	start := time.Now()
	// TREES_SCENARIOS (comma-separated) runs part of the area on a busy
	// machine; unset = all of it.
	want := func(s string) bool {
		only := os.Getenv("TREES_SCENARIOS")
		return only == "" || strings.Contains(","+only+",", ","+s+",")
	}
	if want("nested-weights-sweep") {
		r, err := nestedSweepRows(seeds)
		if err != nil {
			return nil, err
		}
		rows = append(rows, r...)
	}

	// 2. Every steering scenario with the default band and rate limit:
	// mutations per hour and guarantees outside their band; the nested
	// tree in each mode against its stock; hetero-100 and fb-2009 against
	// the unbounded sidecar.
	type job struct {
		scenario string
		seed     int64
		bounded  bool
	}
	var scenarios []string
	for _, s := range []string{"lee-gpu", "lee-toy", "hetero-100", "fb-2009", "nested-weights", "nested-percent", "nested-absolute"} {
		if want(s) {
			scenarios = append(scenarios, s)
		}
	}
	mean := func(rs []experiment.Result) float64 {
		return meanOver(rs, func(r experiment.Result) float64 { return meanJobTime(r).Seconds() })
	}
	n := len(seeds)
	var jobs []job
	for _, s := range scenarios {
		for _, seed := range seeds {
			jobs = append(jobs, job{s, seed, true})
			if s == "hetero-100" || s == "fb-2009" {
				jobs = append(jobs, job{s, seed, false})
			}
		}
	}
	type outcome struct {
		res        experiment.Result
		stock      experiment.Result
		maxPerHour int
		plans      int
		violations []string
		skipped    string
	}
	out := make([]outcome, len(jobs))
	var mu sync.Mutex
	var tasks []func() error
	for i, j := range jobs {
		tasks = append(tasks, func() error {
			cfg, _ := sidecar.ParseConfig(nil)
			cfg.Mode = act.ModeApply
			if !j.bounded {
				unbounded(cfg)
			}
			bc, err := experiment.NewBandChecker(j.scenario, cfg)
			if err != nil {
				if isTraceMissing(err) {
					out[i].skipped = err.Error()
					return nil
				}
				return err
			}
			maxPH, mutations := 0, 0
			res, err := experiment.RunSidecar(j.scenario, j.seed, experiment.SidecarOptions{WarmupSeed: j.seed + 100, Config: cfg, MCSamples: 50,
				OnCycle: func(rep sidecar.CycleReport) {
					bc.Check(rep)
					if rep.Outcome.MutationsLastHour > maxPH {
						maxPH = rep.Outcome.MutationsLastHour
					}
					// Scheduler-conf mutations only (priority-only plans are not).
					if rep.Outcome.Result == act.ResultApplied && rep.Plan != nil && len(rep.Plan.Mutation.UpdateQueue)+len(rep.Plan.Mutation.GlobalUpdates)+len(rep.Plan.Mutation.AddQueue)+len(rep.Plan.Mutation.RemoveQueue) > 0 {
						mutations++
					}
				}})
			if err != nil {
				return fmt.Errorf("%s seed %d: %w", j.scenario, j.seed, err)
			}
			var st experiment.Result
			if j.bounded {
				if st, err = experiment.RunStatic(j.scenario, j.seed, nil); err != nil {
					return err
				}
			}
			mu.Lock()
			res.Applied = mutations
			out[i] = outcome{res: res, stock: st, maxPerHour: maxPH, plans: bc.Plans, violations: bc.Violations}
			mu.Unlock()
			return nil
		})
	}
	if err := experiment.Parallel(tasks); err != nil {
		return nil, err
	}
	// One row per goal over the scenarios (mutations per hour, guarantees
	// in band, reversals); each scenario's own rows behind -candidates.
	var perHour, bands, flips []string
	totalPlans, totalViol := 0, 0
	for _, s := range scenarios {
		var bounded, free, stocks []experiment.Result
		maxPH, plans, viol, applied, hours := 0, 0, 0, 0, 0.0
		skipped := ""
		var first string
		for i, j := range jobs {
			if j.scenario != s {
				continue
			}
			if out[i].skipped != "" {
				skipped = out[i].skipped
				continue
			}
			if !j.bounded {
				free = append(free, out[i].res)
				continue
			}
			bounded = append(bounded, out[i].res)
			stocks = append(stocks, out[i].stock)
			maxPH = max(maxPH, out[i].maxPerHour)
			plans += out[i].plans
			viol += len(out[i].violations)
			if first == "" && len(out[i].violations) > 0 {
				first = out[i].violations[0]
			}
			applied += out[i].res.Applied
			// A run shorter than an hour has all its mutations inside one
			// hour's window: count it as one hour, not extrapolate its
			// minutes to a rate the limiter never saw.
			hours += math.Max(float64(out[i].res.Cycles)*30/3600, 1)
		}
		if skipped != "" {
			row(s+": default band", "skipped: "+skipped, "", "", "")
			continue
		}
		k := len(bounded)
		row(fmt.Sprintf("%s (%d seeds): mutations per hour, mean (most in any hour; a run under an hour counts as one)", s, k),
			fmt.Sprintf("%.1f (%d)", float64(applied)/hours, maxPH), "", "", "≤ max_mutations_per_hour ("+strconv.Itoa(act.DefaultMaxMutationsPerHour)+")")
		rows[len(rows)-1].Detail = true
		perHour = append(perHour, fmt.Sprintf("%s %.1f (%d)", s, float64(applied)/hours, maxPH))
		v := fmt.Sprint(viol)
		if first != "" {
			v += " (first: " + first + ")"
		}
		row(fmt.Sprintf("%s (%d seeds): guarantees written outside their band or maximum-capacity above the admin's, of %d plans", s, k, plans), v, "", "", "0")
		rows[len(rows)-1].Detail = true
		totalPlans, totalViol = totalPlans+plans, totalViol+viol
		bands = append(bands, fmt.Sprintf("%s %s of %d", s, v, plans))
		flips = append(flips, s+" "+reversalFigure(bounded))
		bm, sm := mean(bounded), mean(stocks)
		switch s {
		case "nested-percent", "nested-absolute":
			row(fmt.Sprintf("%s (%d seeds): mean job completion, sidecar vs stock", s, k), dur(bm), dur(sm), fmt.Sprintf("%.2f×", bm/sm), "≤0.85×")
		case "hetero-100", "fb-2009":
			fm := mean(free)
			kept := "n/a (no gain to keep)"
			if sm-fm > 0 {
				kept = fmt.Sprintf("%.0f%%", 100*(sm-bm)/(sm-fm))
			}
			row(fmt.Sprintf("%s (%d seeds, day 1): share of the unbounded sidecar's gain kept with the default band and rate limit", s, k),
				kept, fmt.Sprintf("stock %s, unbounded %s, default %s", dur(sm), dur(fm), dur(bm)), "", "≥90%")
			fa := meanOver(free, func(r experiment.Result) float64 { return float64(r.Applied) })
			fc := meanOver(free, func(r experiment.Result) float64 { return float64(r.Cycles) })
			row(fmt.Sprintf("%s (%d seeds): mutations per hour, unbounded sidecar", s, k), fmt.Sprintf("%.1f", fa/(fc*30/3600)), "", "", "")
			rows[len(rows)-1].Detail = true
		}
	}
	if len(perHour) > 0 {
		row(fmt.Sprintf("default band and rate limit (%d seeds each): mutations per hour, mean (most in any hour; a run under an hour counts as one), per scenario", n),
			strings.Join(perHour, "; "), "", "", "≤ max_mutations_per_hour ("+strconv.Itoa(act.DefaultMaxMutationsPerHour)+")")
		row(fmt.Sprintf("default band and rate limit (%d seeds each): guarantees written outside their band or maximum-capacity above the admin's, of %d plans", n, totalPlans),
			fmt.Sprintf("%d (%s)", totalViol, strings.Join(bands, "; ")), "", "", "0")
		row(fmt.Sprintf("default band and rate limit (%d seeds each): reversals per queue per hour, worst queue of any seed (mean over changed queues), per scenario", n),
			strings.Join(flips, "; "), "", "", "≤1")
	}
	row(fmt.Sprintf("trees: wall time (%d seeds)", n), time.Since(start).Round(time.Second).String(), "", "", "")
	rows[len(rows)-1].Detail = true
	return rows, nil
}

// nestedSweepRows: the nested weight-mode tree, sidecar vs stock vs the
// best static configuration of a sweep in the tree's own mode.
func nestedSweepRows(seeds []int64) ([]Row, error) {
	var rows []Row
	row := func(name, fig, base, ratio, goal string) {
		rows = append(rows, Row{Area: "trees", Name: name, Figure: fig, Baseline: base, Ratio: ratio, Goal: goal})
	}
	// 1. Nested weight mode: stock, best static (sweep), sidecar.
	sc, err := sim.LoadScenario("nested-weights")
	if err != nil {
		return nil, err
	}
	// The sweep `yarnsim compare` runs, in the tree's own mode.
	family, err := experiment.StaticFamily(sc)
	if err != nil {
		return nil, err
	}
	runs, err := experiment.Compare("nested-weights", experiment.CompareOptions{Seeds: seeds, Family: family})
	if err != nil {
		return nil, fmt.Errorf("nested-weights: %w", err)
	}
	mean := func(rs []experiment.Result) float64 {
		return meanOver(rs, func(r experiment.Result) float64 { return meanJobTime(r).Seconds() })
	}
	n := len(seeds)
	stock, static, side := mean(runs.Stock), mean(runs.Static), mean(runs.Sidecar)
	row(fmt.Sprintf("nested-weights (%d seeds): mean job completion, sidecar vs stock", n), dur(side), dur(stock), fmt.Sprintf("%.2f×", side/stock), "≤0.85×")
	row(fmt.Sprintf("nested-weights (%d seeds): mean job completion, sidecar vs best static [%s] of %d", n, runs.StaticName, len(family)), dur(side), dur(static), fmt.Sprintf("%.2f×", side/static), "≤1.0×")

	return rows, nil
}

// unbounded is the sidecar as it was before issue 15: no guarantee band,
// no rate limit, no gain threshold.
func unbounded(cfg *sidecar.Config) {
	cfg.Guarantee = sidecar.GuaranteeConfig{Min: 1e-9, Max: 1e9}
	off := 0.0
	cfg.Rate = act.RateConfig{MinApplyInterval: time.Nanosecond, MaxMutationsPerHour: 1 << 30, MinGainPercent: &off, FlapWindow: -1}
}

func isTraceMissing(err error) bool {
	return err != nil && strings.Contains(err.Error(), sim.ErrTraceMissing.Error())
}
