package main

import (
	"fmt"
	"math"
	"strings"

	"github.com/yarn-sidecar/yarn-sidecar/deadline/replay"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/experiment"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// The replay-chosen static configuration (-heldout-replay, a candidate):
// a day of the cluster's jobs as observed under the admin's configuration
// (the stock warm-up day the sidecar learns from, run seed +100) is
// replayed (deadline/replay) under every member of the sweep's family;
// the member with the least predicted mean completion among those that
// predict no class slower than the admin's configuration in the same
// replay is written once and held. Rates are the scenario's true class
// speeds (a stand-in for the calibrated rates); work, reads and reduce
// times are the warm-up day's observed ones.

// replayMinGain is the least predicted gain of the mean (share) for a
// member to be chosen over the admin's configuration.
const replayMinGain = 0.02

// replayHarmMargin is how much slower than under the admin's
// configuration the replay may predict a class under a chosen member.
const replayHarmMargin = 0.0

// replayPools are the scenario's slots per partition and node type (one
// container of the classes' map size per slot).
func replayPools(sc *sim.Scenario) []replay.Pool {
	mem, vc := int64(2048), int64(1)
	if len(sc.Classes) > 0 {
		mem, vc = sc.Classes[0].MapMemoryMB, sc.Classes[0].MapVCores
	}
	var out []replay.Pool
	for _, nt := range sc.NodeTypes {
		per := min(nt.MemoryMB/mem, nt.VCores/max(vc, 1))
		out = append(out, replay.Pool{Partition: nt.Label, Type: nt.Name, Slots: int(per) * nt.Count})
	}
	return out
}

// replayJobs are the warm-up day's jobs as the replay takes them, each in
// its leaf's full path.
func replayJobs(tree *schedconf.Tree, warm experiment.Result) []replay.Job {
	leafOf := tree.LeafPaths()
	start := warm.Jobs[0].Submit
	for _, j := range warm.Jobs {
		if j.Submit.Before(start) {
			start = j.Submit
		}
	}
	var out []replay.Job
	for _, j := range warm.Jobs {
		if j.Maps == 0 {
			continue
		}
		mapSecs := 0.0
		for _, u := range j.MapUse {
			mapSecs += u.Seconds
		}
		red := 0.0
		if j.Reduces > 0 {
			red = math.Max(0, j.TaskSeconds-j.WastedSeconds-mapSecs) / float64(j.Reduces)
		}
		q := leafOf[j.Queue]
		if q == "" {
			q = j.Queue
		}
		out = append(out, replay.Job{Queue: q, Class: j.Class, Submit: j.Submit.Sub(start), Maps: j.Maps, Reduces: j.Reduces,
			MapWork: j.MapProc / float64(j.Maps), MapRead: j.MapRead / float64(j.Maps), ReduceSeconds: red})
	}
	return out
}

// replayChoose is the member of family the replay chooses (-1: none, the
// admin's configuration), with a one-line reason.
func replayChoose(sc *sim.Scenario, family []experiment.NamedMutation, warm experiment.Result) (int, string, error) {
	base := schedconf.Conf(sc.Conf)
	tree, err := schedconf.ParseTree(base)
	if err != nil {
		return -1, "", err
	}
	exclusive := map[string]bool{}
	for _, l := range sc.Labels {
		exclusive[l.Name] = l.Exclusive
	}
	speed := map[string]map[string]float64{}
	for _, c := range sc.Classes {
		speed[c.Name] = c.Speed
	}
	rate := func(class, typ string) float64 {
		if v, ok := speed[class][typ]; ok {
			return v
		}
		return 1
	}
	pools, jobs := replayPools(sc), replayJobs(tree, warm)
	run := func(c schedconf.Conf) (replay.Result, error) {
		t, err := schedconf.ParseTree(c)
		if err != nil {
			return replay.Result{}, err
		}
		return replay.Run(pools, jobs, replay.FromTree(t, exclusive), rate), nil
	}
	admin, err := run(base)
	if err != nil {
		return -1, "", err
	}
	best, bestMean := -1, admin.MeanAll()*(1-replayMinGain)
	why := "no member predicted ≥2% better with no class slower"
	for i, f := range family {
		if f.Mutation == nil {
			continue
		}
		to, err := base.Apply(*f.Mutation)
		if err != nil {
			return -1, "", fmt.Errorf("%s: %w", f.Name, err)
		}
		r, err := run(to)
		if err != nil {
			return -1, "", fmt.Errorf("%s: %w", f.Name, err)
		}
		ok := true
		for _, c := range admin.Classes() {
			if r.Mean(c) > admin.Mean(c)*(1+replayHarmMargin) {
				ok = false
				break
			}
		}
		if ok && r.MeanAll() < bestMean {
			best, bestMean = i, r.MeanAll()
			why = fmt.Sprintf("predicted %.2f× the admin's", r.MeanAll()/admin.MeanAll())
		}
	}
	return best, why, nil
}

// replayNames lists each cluster's choice.
func replayNames(out []clusterOutcome) string {
	var parts []string
	for _, c := range out {
		parts = append(parts, fmt.Sprintf("%d: %s", c.seed, c.replayName))
	}
	return strings.Join(parts, ", ")
}
