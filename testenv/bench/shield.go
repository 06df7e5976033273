package main

import (
	"fmt"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/experiment"
)

// shieldRows (issue 37): shield-return, on an RM with the recorded
// cluster's preemption timing (monitoring_interval 3 s,
// max_wait_before_kill 10 s): adhoc's crypto steered onto the GPU node
// while its owner ml is idle, ml's train job back at 4 minutes. The
// sidecar runs with its preemption shield on and off on the same seeds:
// the steered queue's containers the RM killed, whether the shield landed
// with the route, and how long before the first kill the run without it
// makes.
func shieldRows(o Options) ([]Row, error) {
	const steered = "root.adhoc"
	seeds := make([]int64, o.Seeds)
	for i := range seeds {
		seeds[i] = int64(i + 1)
	}
	start := time.Now()
	with := make([]experiment.ShieldOutcome, len(seeds))
	without := make([]experiment.ShieldOutcome, len(seeds))
	var tasks []func() error
	for k, s := range seeds {
		tasks = append(tasks, func() (err error) { with[k], err = experiment.RunShield("shield-return", s, true); return err },
			func() (err error) { without[k], err = experiment.RunShield("shield-return", s, false); return err })
	}
	if err := experiment.Parallel(tasks); err != nil {
		return nil, fmt.Errorf("shield-return: %w", err)
	}
	n := len(seeds)
	var rows []Row
	row := func(what, fig, base, ratio, goal string) {
		rows = append(rows, Row{Area: "preemption", Name: fmt.Sprintf("shield-return (%d seeds, 3 s monitor, 10 s max wait): %s", n, what), Figure: fig, Baseline: base, Ratio: ratio, Goal: goal})
	}
	sum := func(os []experiment.ShieldOutcome, f func(experiment.ShieldOutcome) int) int {
		t := 0
		for _, o := range os {
			t += f(o)
		}
		return t
	}
	kw := sum(with, func(o experiment.ShieldOutcome) int { return o.Killed[steered] })
	kwo := sum(without, func(o experiment.ShieldOutcome) int { return o.Killed[steered] })
	row("containers of the steered queue (adhoc) the RM killed, shield on vs off", fmt.Sprintf("%d", kw), fmt.Sprintf("%d", kwo), "", "0, fewer than without")
	all := func(os []experiment.ShieldOutcome) int {
		return sum(os, func(o experiment.ShieldOutcome) int { return o.Result.Preempted })
	}
	row("containers the RM killed, all queues, shield on vs off", fmt.Sprintf("%d", all(with)), fmt.Sprintf("%d", all(without)), "", "")
	rows[len(rows)-1].Detail = true // a breakdown: the goal is the steered queue's
	together := sum(with, func(o experiment.ShieldOutcome) int {
		if o.Together[steered] {
			return 1
		}
		return 0
	})
	row("runs whose shield landed in the same mutation as the route", fmt.Sprintf("%d/%d", together, n), "", "", fmt.Sprintf("%d/%d", n, n))
	var leads []string
	before := 0
	for k := range seeds {
		at, ok := with[k].ShieldAt[steered]
		first, killed := without[k].FirstKill[steered]
		switch {
		case !ok:
			leads = append(leads, "no shield")
		case !killed:
			leads = append(leads, "no kill without")
		default:
			leads = append(leads, first.Sub(at).String())
			if at.Before(first) {
				before++
			}
		}
	}
	row("shield written before the first kill of the run without it (lead per seed)", fmt.Sprintf("%d/%d %v", before, n, leads), "", "", fmt.Sprintf("%d/%d", n, n))
	mean := func(os []experiment.ShieldOutcome) float64 {
		v := 0.0
		for _, o := range os {
			v += meanJobTime(o.Result).Seconds() / float64(len(os))
		}
		return v
	}
	row("mean job completion, shield on vs off", dur(mean(with)), dur(mean(without)), fmt.Sprintf("%.2f×", mean(with)/mean(without)), "")
	rows[len(rows)-1].Detail = true
	var sides []experiment.Result
	for _, o := range with {
		sides = append(sides, o.Result)
	}
	row("reversals per queue per hour, shield on: worst queue of any seed (mean over changed queues)", reversalFigure(sides), "", "", "≤1")
	rows = append(rows, Row{Area: "preemption", Name: fmt.Sprintf("shield-return: wall time of %d seeds × (shield on, off)", n), Figure: time.Since(start).Round(time.Second).String(), Detail: true})
	return rows, nil
}
