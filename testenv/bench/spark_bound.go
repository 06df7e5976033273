package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/experiment"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// benchSparkBound is a measured bound on spark-mixed's mean completion
// (issue 36's goals ≤0.80× stock, ≤0.95× best static): every job run
// alone on the idle cluster (the generators' gaps ×aloneGapScale, the
// same jobs: sizes drawn in the same order, matched by class and index),
// once with the stock configuration (its queue on the default partition,
// borrowing the idle GPU nodes: the whole cluster) and once with every
// queue routed to the gpu partition (the GPU nodes alone), and the
// better of the two per job. A queue configuration gives a job one of
// those two placements, shared with the others; a job alone is not
// slowed by the others, so this mean is a floor for configurations that
// route queues (static or steered). Not a floor for placements YARN
// cannot express per job (part GPU nodes, part default ones by choice).
func benchSparkBound(o Options) ([]Row, error) {
	var sumStock, sumDefault, sumBest float64
	n := 0
	seeds := benchSeeds(o)
	for _, seed := range seeds {
		base, err := sim.LoadScenario("spark-mixed")
		if err != nil {
			return nil, err
		}
		stock, err := experiment.RunStaticOn(base, seed, nil)
		if err != nil {
			return nil, err
		}
		alone, err := sim.LoadScenario("spark-mixed")
		if err != nil {
			return nil, err
		}
		for i := range alone.Generators {
			alone.Generators[i].MeanGap *= aloneGapScale
		}
		def, err := runAlone(alone, seed, nil)
		if err != nil {
			return nil, err
		}
		conf := schedconf.Conf(alone.Conf)
		to := conf.Clone()
		tree, err := schedconf.ParseTree(conf)
		if err != nil {
			return nil, err
		}
		for _, q := range tree.Leaves() {
			to[schedconf.Key(q.Path, "default-node-label-expression")] = "gpu"
		}
		to[schedconf.Prefix+"rack-locality-full-reset"] = "false"
		if err := schedconf.Validate(to); err != nil {
			return nil, fmt.Errorf("bound: every queue routed to gpu: %w", err)
		}
		m := schedconf.Diff(conf, to)
		gpu, err := runAlone(alone, seed, &m)
		if err != nil {
			return nil, err
		}
		st, g := byClassIndex(stock.Jobs), byClassIndex(gpu.Jobs)
		for _, j := range def.Jobs {
			k := classIndex(j.Name)
			s, ok1 := st[k]
			x, ok2 := g[k]
			if !ok1 || !ok2 {
				return nil, fmt.Errorf("bound: job %s missing from a run", j.Name)
			}
			d := j.Duration()
			sumDefault += d.Seconds()
			sumBest += min(d, x).Seconds()
			sumStock += s.Seconds()
			n++
		}
	}
	if n == 0 {
		return nil, nil
	}
	return []Row{{Area: "spark", Name: fmt.Sprintf("spark-mixed (%d seeds): mean completion of each job alone, best of its queue on the default partition or routed to gpu (a floor for queue routes)", len(seeds)),
		Figure: fmt.Sprintf("%s (alone on the default partition %s)", dur(sumBest/float64(n)), dur(sumDefault/float64(n))), Baseline: fmt.Sprintf("stock %s", dur(sumStock/float64(n))),
		Ratio: fmt.Sprintf("%.2f×", sumBest/sumStock), Goal: "the floor under ≤0.80× stock"}}, nil
}

// aloneGapScale spaces the jobs so that almost none overlap (the
// generators' mean gaps become 8–14 h; a job runs minutes).
const aloneGapScale = 100

// runAlone runs a spaced-out scenario to the end (longer than
// experiment.Limit).
func runAlone(sc *sim.Scenario, seed int64, m *schedconf.Mutation) (experiment.Result, error) {
	c, err := sim.NewCluster(sc, seed)
	if err != nil {
		return experiment.Result{}, err
	}
	if m != nil {
		if _, err := c.MutateConf(*m, false); err != nil {
			return experiment.Result{}, err
		}
	}
	if !c.RunUntilDone(5000 * time.Hour) {
		return experiment.Result{}, fmt.Errorf("%s seed %d alone did not finish", sc.Name, seed)
	}
	return experiment.Result{Jobs: c.Results()}, nil
}

// classIndex is a generated job's class and index ("sort_20260101_007"
// → "sort_007"): its arrival day differs when its gaps are scaled.
func classIndex(name string) string {
	parts := strings.Split(name, "_")
	return parts[0] + "_" + parts[len(parts)-1]
}

func byClassIndex(jobs []sim.JobResult) map[string]time.Duration {
	out := map[string]time.Duration{}
	for _, j := range jobs {
		out[classIndex(j.Name)] = j.Duration()
	}
	return out
}
