package main

import (
	"fmt"
	"strings"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/experiment"
)

// benchSparkCompare: spark-mixed run stock, best static (the sweep's, on
// other seeds) and steered by the sidecar with Spark learning on
// (experiment.RunSidecar wires the SparkLearner for Spark scenarios),
// through the steering rows' code; at most 3 seeds (each is ~4 min of
// this machine's CPU). The goals: ≤0.80× stock, ≤0.95× best
// static, no class more than 2% slower than stock.
func benchSparkCompare(o Options) ([]Row, error) {
	p := o
	if p.Seeds > 3 {
		p.Seeds = 3
	}
	rows, runs, err := steeringScenarioRuns("spark-mixed", p)
	if err != nil || runs == nil {
		return rows, err
	}
	for i := range rows {
		rows[i].Area = "spark"
		// The summary row below states these figures' goals.
		if strings.Contains(rows[i].Name, "mean job completion, sidecar (day 1) vs") {
			rows[i].Detail = true
		}
	}
	stock := meanOver(runs.Stock, func(r experiment.Result) float64 { return meanJobTime(r).Seconds() })
	side := meanOver(runs.Sidecar, func(r experiment.Result) float64 { return meanJobTime(r).Seconds() })
	static := meanOver(runs.Static, func(r experiment.Result) float64 { return meanJobTime(r).Seconds() })
	slowerThanStock := func(rs []experiment.Result) []string {
		var out []string
		for _, class := range classesOf(rs[0]) {
			f := func(r experiment.Result) float64 { return meanClassTime(r, class) }
			if s, st := meanOver(rs, f), meanOver(runs.Stock, f); s > 1.02*st {
				out = append(out, fmt.Sprintf("%s %.2f×", class, s/st))
			}
		}
		return out
	}
	slower := slowerThanStock(runs.Sidecar)
	// The best static judged as the sidecar is: where it slows a class
	// too, the gain goals and the harm goal ask for different things.
	staticSlower := slowerThanStock(runs.Static)
	return append(rows, Row{Area: "spark", Name: fmt.Sprintf("spark-mixed (%d seeds): mean completion, sidecar vs stock and vs best static [%s]; classes >2%% slower than stock", len(runs.Sidecar), runs.StaticName),
		Figure:   fmt.Sprintf("%.2f× stock, %.2f× best static; slower: %s", side/stock, side/static, orNone(strings.Join(slower, ", "))),
		Baseline: fmt.Sprintf("stock %s, best static %s (its classes >2%% slower than stock: %s)", dur(stock), dur(static), orNone(strings.Join(staticSlower, ", "))), Ratio: fmt.Sprintf("%.2f×", side/stock),
		Goal: "≤0.80× stock, ≤0.95× best static, none >2% slower"}), nil
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
