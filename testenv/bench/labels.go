package main

import (
	"fmt"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/experiment"
)

// Node-label layout (issue 17): hetero-100 as most clusters start — every
// node in the default partition — with the sidecar allowed to lay out
// partitions itself, against the hand-labelled hetero-100 it is otherwise
// benchmarked on. Both days start from a stock day's history (day one).

func init() {
	register(Bench{Area: "labels", Order: 55, Run: runLabels, Rows: 4})
}

func runLabels(o Options) ([]Row, error) {
	n := min(o.Seeds, 5)
	if o.Quick {
		n = min(n, 2)
	}
	seeds := make([]int64, n)
	for i := range seeds {
		seeds[i] = int64(i + 1)
	}
	stockL, sideL := make([]experiment.Result, n), make([]experiment.Result, n)
	stockU, sideU := make([]experiment.Result, n), make([]experiment.Result, n)
	firstLabel := make([]time.Duration, n)
	changes := make([]int, n)
	var tasks []func() error
	for k, s := range seeds {
		tasks = append(tasks,
			func() (err error) { stockL[k], err = experiment.RunStatic("hetero-100", s, nil); return },
			func() (err error) {
				sideL[k], err = experiment.RunSidecar("hetero-100", s, experiment.SidecarOptions{WarmupSeed: s + 100})
				return
			},
			func() (err error) { stockU[k], err = experiment.RunStatic("hetero-100-unlabelled", s, nil); return },
			func() (err error) {
				var start time.Time
				sideU[k], err = experiment.RunSidecar("hetero-100-unlabelled", s, experiment.SidecarOptions{WarmupSeed: s + 100, Labels: true,
					OnCycle: func(rep sidecar.CycleReport) {
						if start.IsZero() {
							start = rep.Snapshot.Time
						}
						if rep.Layout != nil && rep.Layout.Result == act.ResultApplied {
							changes[k]++
							if firstLabel[k] == 0 {
								firstLabel[k] = rep.Snapshot.Time.Sub(start)
							}
						}
					}})
				return
			})
	}
	if err := experiment.Parallel(tasks); err != nil {
		return nil, err
	}
	mean := func(rs []experiment.Result) float64 {
		return meanOver(rs, func(r experiment.Result) float64 { return meanJobTime(r).Seconds() })
	}
	sl, dl, su, du := mean(stockL), mean(sideL), mean(stockU), mean(sideU)
	share := (su - du) / (sl - dl)
	var first time.Duration
	total := 0
	for k := range seeds {
		first += firstLabel[k]
		total += changes[k]
	}
	name := fmt.Sprintf("hetero-100, every node in the default partition (%d seeds)", n)
	return []Row{
		{Area: "labels", Name: name + ": mean job completion, sidecar laying out labels vs stock",
			Figure: dur(du), Baseline: dur(su), Ratio: fmt.Sprintf("%.2f×", du/su)},
		{Area: "labels", Name: "hand-labelled hetero-100 (same seeds): mean job completion, sidecar vs stock",
			Figure: dur(dl), Baseline: dur(sl), Ratio: fmt.Sprintf("%.2f×", dl/sl), Detail: true}, // the next row's baseline
		{Area: "labels", Name: "share of the hand-labelled gain reached from no labels",
			Figure: fmt.Sprintf("%.0f%%", 100*share), Ratio: fmt.Sprintf("gain %s vs %s", dur(su-du), dur(sl-dl)), Goal: "≥90%"},
		{Area: "labels", Name: "label changes applied per run; time to the first",
			Figure: fmt.Sprintf("%.1f; %s", float64(total)/float64(n), (first / time.Duration(n)).Round(time.Second))},
		{Area: "labels", Name: name + ": reversals per queue per hour, sidecar laying out labels: worst queue of any seed (mean over changed queues)",
			Figure: reversalFigure(sideU), Baseline: "hand-labelled: " + reversalFigure(sideL), Goal: "≤1"},
	}, nil
}
