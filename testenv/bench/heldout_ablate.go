package main

import (
	"fmt"
	"strings"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar/decide"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/experiment"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
)

// The step ablation (issue 32: "keep a step only if removing it costs a
// held-out figure"). With -heldout-ablate "route gain,goal route", the
// heldout rows also run, on the same generated clusters and the same run
// seed, one sidecar per named step with that step removed
// (experiment.SidecarOptions.SkipSteps); each step's row sets its figures
// next to the full sidecar's from the same run. Run it on the tuning set
// (-heldout-tuning): which steps to keep is tuning, the held-out set
// reports.

// ablateNames parses -heldout-ablate: comma-separated decide step names
// (decide.StepNames), each known and named once.
func ablateNames(s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	known := map[string]bool{}
	for _, n := range decide.StepNames() {
		known[n] = true
	}
	seen := map[string]bool{}
	var names []string
	for _, n := range strings.Split(s, ",") {
		n = strings.TrimSpace(n)
		switch {
		case n == "":
			return nil, fmt.Errorf("-heldout-ablate %q: an empty step name", s)
		case !known[n]:
			return nil, fmt.Errorf("-heldout-ablate: no decide step named %q (steps: %s)", n, strings.Join(decide.StepNames(), ", "))
		case seen[n]:
			return nil, fmt.Errorf("-heldout-ablate: step %q named twice", n)
		}
		seen[n] = true
		names = append(names, n)
	}
	return names, nil
}

// ablateTasks are one sidecar run per named step on cluster k, without
// that step; each stores its result in out[k].ablated[step].
func ablateTasks(out []clusterOutcome, k int, sc *sim.Scenario, steps []string, store func(func())) []func() error {
	var tasks []func() error
	for _, step := range steps {
		tasks = append(tasks, func() error {
			r, err := experiment.RunSidecar(sc.Name, heldoutRunSeed, experiment.SidecarOptions{Scenario: sc, WarmupSeed: heldoutRunSeed + 100, MCSamples: 50,
				SkipSteps: map[string]bool{step: true}})
			store(func() {
				if out[k].ablated == nil {
					out[k].ablated = map[string]experiment.Result{}
				}
				out[k].ablated[step] = r
			})
			return wrapCluster(out[k].seed, "sidecar without "+step, err)
		})
	}
	return tasks
}

// ablateRows are one row per ablated step: over the clusters, how many
// have a class >5% / >2% slower than stock, the means vs stock and vs the
// best static, the worst class of any cluster and the worst queue's
// reversals, with the full sidecar's same figures as the baseline.
func ablateRows(set string, out []clusterOutcome, steps []string) []Row {
	if len(steps) == 0 {
		return nil
	}
	n := len(out)
	var full []judged
	for k := range out {
		full = append(full, judge(&out[k], out[k].side))
	}
	figures := func(s summary, js []judged) string {
		worst, at := 0.0, ""
		for k, j := range js {
			if j.worst > worst {
				worst, at = j.worst, fmt.Sprintf("cluster %d [%s]", out[k].seed, j.worstClass)
			}
		}
		return fmt.Sprintf(">5%%: %d/%d, >2%%: %d/%d; mean %.3f× stock, %.3f× static; worst class %.2f× (%s); %.2f rev/q/h",
			s.over5, n, s.over2, n, s.meanStock, s.meanStatic, worst, at, s.worstFlips)
	}
	fs := summarize(full)
	var rows []Row
	for _, step := range steps {
		var js []judged
		for k := range out {
			js = append(js, judge(&out[k], out[k].ablated[step]))
		}
		s := summarize(js)
		rows = append(rows, Row{Area: "heldout",
			Name:     fmt.Sprintf("%s set (%d clusters), sidecar without step %q: clusters with a class >5%%/>2%% slower than stock; mean vs stock, vs best static; worst class; reversals per queue-hour (worst queue)", set, n, step),
			Figure:   figures(s, js),
			Baseline: "full sidecar " + figures(fs, full),
			Ratio:    fmt.Sprintf("mean %.3f× the full sidecar's", s.meanStock/fs.meanStock),
			Goal:     "keep the step only if removing it costs a figure"})
	}
	return rows
}
