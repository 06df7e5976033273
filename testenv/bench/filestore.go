package main

import (
	"fmt"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/experiment"
)

// The file-store rows (issue 34): hetero-100 with the sidecar acting on the
// file store (act.via: refresh-queues: capacity-scheduler.xml written,
// refreshQueues over the RM admin protocol) against stock and against the
// same sidecar on the fs store (scheduler-conf PUT), on the same seeds in
// the same run, and how many refreshes that takes per hour. Day one only
// (each run learns from a stock warm-up day, seed+100): the steering rows
// measure the fs store's day two; the file store's path differs only in how
// a plan is written.
func init() {
	register(Bench{Area: "filestore", Order: 52, Run: runFileStore, Rows: 5})
}

func runFileStore(o Options) ([]Row, error) {
	const sc = "hetero-100"
	seeds := benchSeeds(o)
	n := len(seeds)
	stock, fs, file := make([]experiment.Result, n), make([]experiment.Result, n), make([]experiment.Result, n)
	start := time.Now()
	var tasks []func() error
	for k, s := range seeds {
		tasks = append(tasks,
			func() (err error) { stock[k], err = experiment.RunStatic(sc, s, nil); return },
			func() (err error) {
				fs[k], err = experiment.RunSidecar(sc, s, experiment.SidecarOptions{WarmupSeed: s + 100})
				return
			},
			func() (err error) {
				file[k], err = experiment.RunSidecar(sc, s, experiment.SidecarOptions{WarmupSeed: s + 100, FileStore: true})
				return
			})
	}
	if err := experiment.Parallel(tasks); err != nil {
		return nil, fmt.Errorf("%s: %w", sc, err)
	}
	var rows []Row
	row := func(name, fig, base, ratio, goal string) {
		rows = append(rows, Row{Area: "filestore", Name: fmt.Sprintf("%s (%d seeds): %s", sc, n, name), Figure: fig, Baseline: base, Ratio: ratio, Goal: goal})
	}
	mean := func(rs []experiment.Result) float64 {
		return meanOver(rs, func(r experiment.Result) float64 { return meanJobTime(r).Seconds() })
	}
	st, f, fi := mean(stock), mean(fs), mean(file)
	row("mean job completion, sidecar on the fs store (scheduler-conf PUT) vs stock", dur(f), dur(st), fmt.Sprintf("%.3f×", f/st), "<1")
	row("mean job completion, sidecar on the file store (refresh-queues) vs stock", dur(fi), dur(st), fmt.Sprintf("%.3f×", fi/st), "the fs store's gain within 2%")
	row("mean job completion, file store vs fs store", dur(fi), dur(f), fmt.Sprintf("%.3f×", fi/f), "0.98–1.02×")
	refreshes, applied, fsApplied, hours := 0, 0, 0, 0.0
	for k := range file {
		refreshes += file[k].Refreshes
		applied += file[k].Applied
		fsApplied += fs[k].Applied
		hours += file[k].Makespan.Hours()
	}
	row("refreshQueues per hour of run on the file store", fmt.Sprintf("%.1f/h", float64(refreshes)/hours), "", "", "")
	rows[len(rows)-1].Detail = true
	row("writes applied, file store (fs store)", fmt.Sprintf("%d", applied), fmt.Sprintf("%d", fsApplied), "", "equal")
	row("reversals per queue per hour, file store (fs store): worst queue of any seed (mean over changed queues)", reversalFigure(file), reversalFigure(fs), "", "≤1")
	row("wall time of the rows", time.Since(start).Round(time.Second).String(), "", "", "")
	rows[len(rows)-1].Detail = true
	return rows, nil
}
