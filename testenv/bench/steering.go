package main

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/experiment"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
)

// The steering benchmark (issues 7 and 8): each scenario over the seeds,
// run four ways in the same process — stock (the scenario's static queues;
// the sidecar observing in dry-run mode so PS is measured the same way),
// the best static configuration a skilled admin could set (found by a sweep
// on separate seeds, then run on the benchmark's seeds), the sidecar
// steering, and, where the scenario allows an exact argument, the oracle.
func init() {
	// Rows: lee-gpu 6, lee-toy 7, hetero-100 8, fb-2009 7.
	register(Bench{Area: "steering", Order: 50, Run: runSteering, Rows: 28})
}

// secondDay: scenarios whose stock warm-up never runs maps on some node
// type, so day one pays for calibration and day two shows steady state.
var secondDay = map[string]bool{"hetero-100": true, "fb-2009": true}

// steeringScenarios are the scenarios of the steering rows, in order.
var steeringScenarios = []string{"lee-gpu", "lee-toy", "hetero-100", "fb-2009"}

func runSteering(o Options) ([]Row, error) {
	var rows []Row
	for _, sc := range steeringScenarios {
		if o.Rows != "" && !strings.Contains(sc, o.Rows) {
			continue // -rows names the scenarios to run
		}
		r, err := steeringScenario(sc, o)
		if err != nil {
			return nil, err
		}
		rows = append(rows, r...)
	}
	return rows, nil
}

// steeringScenario runs one scenario through experiment.Compare (the code
// behind `yarnsim compare`) and turns it into rows.
func steeringScenario(sc string, o Options) ([]Row, error) {
	rows, _, err := steeringScenarioRuns(sc, o)
	return rows, err
}

// steeringScenarioRuns is steeringScenario with the runs (nil when the
// scenario was skipped: its trace is not on this machine).
func steeringScenarioRuns(sc string, o Options) ([]Row, *experiment.Comparison, error) {
	seeds := benchSeeds(o)
	start := time.Now()
	runs, err := experiment.Compare(sc, experiment.CompareOptions{Seeds: seeds, SecondDay: secondDay[sc]})
	if err != nil {
		if strings.Contains(err.Error(), sim.ErrTraceMissing.Error()) {
			return []Row{{Area: "steering", Name: sc, Figure: "skipped: " + err.Error()}}, nil, nil
		}
		return nil, nil, fmt.Errorf("%s: %w", sc, err)
	}
	rows, err := steeringRows(sc, runs)
	if err != nil {
		return nil, nil, err
	}
	return append(rows, Row{Area: "steering", Name: fmt.Sprintf("%s: wall time of %d seeds × (stock, best static, sidecar) + sweep", sc, len(seeds)),
		Figure: time.Since(start).Round(time.Second).String(), Detail: true}), runs, nil
}

func benchSeeds(o Options) []int64 {
	first := o.FirstSeed
	if first == 0 {
		first = 1
	}
	seeds := make([]int64, o.Seeds)
	for i := range seeds {
		seeds[i] = first + int64(i)
	}
	if o.Quick && len(seeds) > 2 {
		seeds = seeds[:2]
	}
	return seeds
}

func meanJobTime(r experiment.Result) time.Duration { return experiment.MeanCompletion(r.Jobs) }

// meanOver averages f over the seeds' results.
func meanOver(rs []experiment.Result, f func(experiment.Result) float64) float64 {
	s := 0.0
	for _, r := range rs {
		s += f(r)
	}
	return s / float64(len(rs))
}

// psStats are the time averages of ΣPS, its bound and min PS over the
// cycles in which at least minJobs jobs ran.
func psStats(r experiment.Result, minJobs int) (sum, bound, min float64) {
	n := 0
	for _, p := range r.PS {
		if len(p.Jobs) < minJobs || p.Bound == 0 {
			continue
		}
		sum += p.SumPS
		bound += p.Bound
		min += p.MinPS
		n++
	}
	if n == 0 {
		return 0, 0, 0
	}
	return sum / float64(n), bound / float64(n), min / float64(n)
}

func jobTime(r experiment.Result, name string) float64 { return r.ByName()[name].Seconds() }

func dur(s float64) string { return (time.Duration(s) * time.Second).Round(time.Second).String() }

func steeringRows(sc string, runs *experiment.Comparison) ([]Row, error) {
	var rows []Row
	n := len(runs.Sidecar)
	row := func(name, fig, base, ratio, goal string) {
		rows = append(rows, Row{Area: "steering", Name: fmt.Sprintf("%s (%d seeds): %s", sc, n, name), Figure: fig, Baseline: base, Ratio: ratio, Goal: goal})
	}
	// detail is a row printed only with -candidates: a per-class
	// breakdown of a goal row, or a figure no goal reads.
	detail := func(name, fig, base, ratio, goal string) {
		row(name, fig, base, ratio, goal)
		rows[len(rows)-1].Detail = true
	}
	slower := 0
	for k := range runs.Sidecar {
		st := runs.Stock[k].ByName()
		for name, d := range runs.Sidecar[k].ByName() {
			if float64(d) > 1.02*float64(st[name]) {
				slower++
			}
		}
	}
	slowerClasses := []string{}
	for _, class := range classesOf(runs.Sidecar[0]) {
		f := func(r experiment.Result) float64 { return meanClassTime(r, class) }
		last := runs.Sidecar
		if runs.Sidecar2 != nil {
			last = runs.Sidecar2
		}
		if meanOver(last, f) > 1.02*meanOver(runs.Stock, f) {
			slowerClasses = append(slowerClasses, class)
		}
	}
	switch sc {
	case "lee-gpu", "lee-toy":
		oracle, err := oracleRatios(sc)
		if err != nil {
			return nil, err
		}
		names := []string{"crypto", "sort"}
		if sc == "lee-toy" {
			names = []string{"A", "B"}
		}
		for _, name := range names {
			stock := meanOver(runs.Stock, func(r experiment.Result) float64 { return jobTime(r, name) })
			side := meanOver(runs.Sidecar, func(r experiment.Result) float64 { return jobTime(r, name) })
			static := meanOver(runs.Static, func(r experiment.Result) float64 { return jobTime(r, name) })
			goal := fmt.Sprintf("oracle %.2f×", oracle[name])
			if sc == "lee-gpu" {
				goal += map[string]string{"crypto": " (Lee ≈0.70×)", "sort": " (Lee: not slower)"}[name]
			}
			row(name+" completion, sidecar vs stock", dur(side), dur(stock), fmt.Sprintf("%.2f×", side/stock), goal)
			detail(name+" completion, best static ["+runs.StaticName+"] vs stock", dur(static), dur(stock), fmt.Sprintf("%.2f×", static/stock), "")
			// Share of the oracle's gain captured, per seed then averaged;
			// the best static configuration's beside it: the oracle is a
			// fluid allocation (no tasks, no reduces), which even the
			// sweep's best, set with the true speeds, does not reach.
			capture := func(rs []experiment.Result) float64 {
				c := 0.0
				for k := range rs {
					st := jobTime(runs.Stock[k], name)
					gain := st * (1 - oracle[name])
					c += (st - jobTime(rs[k], name)) / gain / float64(n)
				}
				return c
			}
			row(name+": share of the oracle's gain captured, sidecar (best static)", fmt.Sprintf("%.0f%%", 100*capture(runs.Sidecar)),
				fmt.Sprintf("%.0f%%", 100*capture(runs.Static)), "", "≥90%")
		}
		if sc == "lee-toy" {
			var share float64
			for _, r := range runs.Sidecar {
				s, b, _ := psStats(r, 2)
				share += s / b / float64(n)
			}
			row("ΣPS while both jobs run, share of its upper bound", fmt.Sprintf("%.1f%%", 100*share), "", "", "reach the bound")
			detail("ΣPS while both jobs run, share of the usable-capacity bound (usable.go)", fmt.Sprintf("%.1f%%", 100*meanUsableShare(runs.Sidecar)), "", "", "")
		}
	default:
		stock := meanOver(runs.Stock, func(r experiment.Result) float64 { return meanJobTime(r).Seconds() })
		side := meanOver(runs.Sidecar, func(r experiment.Result) float64 { return meanJobTime(r).Seconds() })
		static := meanOver(runs.Static, func(r experiment.Result) float64 { return meanJobTime(r).Seconds() })
		row("mean job completion, sidecar (day 1) vs stock", dur(side), dur(stock), fmt.Sprintf("%.2f×", side/stock), "<1")
		row("mean job completion, sidecar (day 1) vs best static ["+runs.StaticName+"]", dur(side), dur(static), fmt.Sprintf("%.2f×", side/static), "≤1")
		if runs.Sidecar2 != nil {
			side2 := meanOver(runs.Sidecar2, func(r experiment.Result) float64 { return meanJobTime(r).Seconds() })
			// Day 2 is steady state, day 1 (above) the figure with the
			// goal: it pays for calibration as a new install does.
			detail("mean job completion, sidecar (day 2) vs stock", dur(side2), dur(stock), fmt.Sprintf("%.2f×", side2/stock), "<1")
			detail("mean job completion, sidecar (day 2) vs best static ["+runs.StaticName+"]", dur(side2), dur(static), fmt.Sprintf("%.2f×", side2/static), "≤1")
			for _, class := range classesOf(runs.Sidecar2[0]) {
				f := func(r experiment.Result) float64 { return meanClassTime(r, class) }
				detail("mean "+class+" completion, sidecar (day 2) vs stock", dur(meanOver(runs.Sidecar2, f)), dur(meanOver(runs.Stock, f)),
					fmt.Sprintf("%.2f×", meanOver(runs.Sidecar2, f)/meanOver(runs.Stock, f)), "")
			}
		}
		for _, class := range classesOf(runs.Sidecar[0]) {
			f := func(r experiment.Result) float64 { return meanClassTime(r, class) }
			detail("mean "+class+" completion, sidecar (day 1) vs stock", dur(meanOver(runs.Sidecar, f)), dur(meanOver(runs.Stock, f)),
				fmt.Sprintf("%.2f×", meanOver(runs.Sidecar, f)/meanOver(runs.Stock, f)), "")
		}
		// The typical (small) job of each class: the median over the
		// seeds' pooled jobs, from the same table `yarnsim compare` prints.
		// One row for the goal (no class's median >2% slower), the
		// classes' own rows behind -candidates.
		medianSlower := []string{}
		for _, c := range runs.Table().Classes {
			if c.Class == "all" {
				continue
			}
			if c.Sidecar.MedianSeconds > 1.02*c.Stock.MedianSeconds {
				medianSlower = append(medianSlower, fmt.Sprintf("%s %.2f×", c.Class, c.Sidecar.MedianSeconds/c.Stock.MedianSeconds))
			}
			detail("median "+c.Class+" completion, sidecar (day 1) vs stock", dur(c.Sidecar.MedianSeconds), dur(c.Stock.MedianSeconds),
				fmt.Sprintf("%.2f×", c.Sidecar.MedianSeconds/c.Stock.MedianSeconds), "not >1.02×")
		}
		row("classes whose median completion is >2% slower than stock (day 1)", fmt.Sprintf("%d %v", len(medianSlower), medianSlower), "", "", "0 (each not >1.02×)")
		var sS, sB, sM, tS, tB, tM float64
		for k := range runs.Sidecar {
			s, b, m := psStats(runs.Sidecar[k], 1)
			sS, sB, sM = sS+s/float64(n), sB+b/float64(n), sM+m/float64(n)
			s, b, m = psStats(runs.Stock[k], 1)
			tS, tB, tM = tS+s/float64(n), tB+b/float64(n), tM+m/float64(n)
		}
		row("ΣPS (time average), sidecar vs stock", fmt.Sprintf("%.2f", sS), fmt.Sprintf("%.2f", tS), fmt.Sprintf("%.2f×", sS/tS), ">1")
		detail("ΣPS share of its upper bound, sidecar (stock)", fmt.Sprintf("%.0f%%", 100*sS/sB), fmt.Sprintf("%.0f%%", 100*tS/tB), "", "")
		row("min PS (time average), sidecar vs stock", fmt.Sprintf("%.3f", sM), fmt.Sprintf("%.3f", tM), fmt.Sprintf("%.2f×", sM/tM), "≥1")
		var mS, tot, mT, totT int
		for k := range runs.Sidecar {
			m, t := experiment.DeadlinesMet(runs.Sidecar[k].Jobs)
			mS, tot = mS+m, tot+t
			m, t = experiment.DeadlinesMet(runs.Stock[k].Jobs)
			mT, totT = mT+m, totT+t
		}
		if tot > 0 {
			row("jobs meeting their deadline tag, sidecar vs stock", fmt.Sprintf("%d/%d (%.0f%%)", mS, tot, 100*float64(mS)/float64(tot)),
				fmt.Sprintf("%d/%d (%.0f%%)", mT, totT, 100*float64(mT)/float64(totT)), fmt.Sprintf("%+.0f pts", 100*(float64(mS)/float64(tot)-float64(mT)/float64(totT))), "≥98% of feasible goals")
		}
	}
	if len(runs.Sidecar[0].Jobs) <= 10 {
		row("jobs more than 2% slower than under stock (all seeds)", fmt.Sprint(slower), "", "", "0")
	} else {
		row("classes whose mean completion is >2% slower than stock (day 2 where run)", fmt.Sprintf("%d %v", len(slowerClasses), slowerClasses),
			fmt.Sprintf("%d single jobs >2%% slower on day 1 (same luck per task; where the tasks land differs)", slower), "", "0")
	}
	row("reversals per queue per hour, sidecar: worst queue of any seed (mean over changed queues)", reversalFigure(runs.Sidecar), "", "", "≤1")
	applied := meanOver(runs.Sidecar, func(r experiment.Result) float64 { return float64(r.Applied) })
	cycles := meanOver(runs.Sidecar, func(r experiment.Result) float64 { return float64(r.Cycles) })
	detail("plans applied per run / cycles", fmt.Sprintf("%.0f / %.0f", applied, cycles), "", "", "")
	return rows, nil
}

// reversalFigure is the most reversals any queue made per hour over the
// runs, and the mean over the queues they changed (experiment.Result.
// ReversalsPerQueueHour; issue 32).
func reversalFigure(rs []experiment.Result) string {
	worst, mean := 0.0, 0.0
	for _, r := range rs {
		w, m := r.ReversalsPerQueueHour()
		worst = math.Max(worst, w)
		mean += m / float64(len(rs))
	}
	return fmt.Sprintf("%.2f (mean %.2f)", worst, mean)
}

func classesOf(r experiment.Result) []string { return experiment.ClassesOf([]experiment.Result{r}) }

func meanClassTime(r experiment.Result, class string) float64 {
	s, n := 0.0, 0
	for _, j := range r.Jobs {
		if j.Class == class {
			s += j.Duration().Seconds()
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return s / float64(n)
}
