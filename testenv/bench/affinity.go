package main

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/hdfs"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/experiment"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/hdfsns"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/namenode"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// Data affinity (issue 17, rows b and c): the data-heavy and data-split
// scenarios with the sidecar reading block maps from the mini NameNode
// (effective rates T = Tr + Tp, per queue) against the same sidecar
// without them and stock; and the
// NameNode calls a cycle makes at 1,000 running jobs with the per-job cache
// and the call budget, against re-reading every job each cycle.

func init() {
	// Rows: 2 per scenario (vs affinity off, the I/O-bound class) + reversals per scenario + NameNode calls at 1,000 jobs.
	register(Bench{Area: "affinity", Order: 56, Run: runAffinity, Rows: 7})
}

func runAffinity(o Options) ([]Row, error) {
	n := min(o.Seeds, 5)
	if o.Quick {
		n = min(n, 2)
	}
	heavy, err := affinityRuns("data-heavy", n)
	if err != nil {
		return nil, err
	}
	split, err := affinityRuns("data-split", n)
	if err != nil {
		return nil, err
	}
	rows := heavy.rows(n, "scan", "crunch")
	calls := 0
	cycles := 0
	for _, r := range heavy.on {
		for _, c := range r.NameNodeCalls {
			calls += c
			cycles++
		}
	}
	rows = append(rows, Row{Area: "affinity", Name: "data-heavy: mini NameNode calls per sidecar cycle (mean over the runs)",
		Figure: fmt.Sprintf("%.1f", float64(calls)/float64(max(cycles, 1))), Detail: true})
	// data-split: the same class in two queues whose inputs sit on
	// different racks; block maps are read per queue.
	rows = append(rows, split.rows(n, "scan", "crunch")...)
	queue := func(rs []experiment.Result, q string) float64 {
		return meanOver(rs, func(r experiment.Result) float64 { return meanQueueTime(r, q) })
	}
	for _, q := range []string{"root.east", "root.west"} {
		rows = append(rows, Row{Area: "affinity",
			Name:   fmt.Sprintf("data-split: queue %s (scan), sidecar with block maps vs affinity off (stock: %s)", q, dur(queue(split.stock, q))),
			Figure: dur(queue(split.on, q)), Baseline: dur(queue(split.off, q)), Ratio: fmt.Sprintf("%.2f×", queue(split.on, q)/queue(split.off, q)), Detail: true})
	}
	// Issue 32's flap figure for the sidecar with block maps.
	for _, ar := range []affinityRun{heavy, split} {
		rows = append(rows, Row{Area: "affinity", Name: ar.scenario + ": reversals per queue per hour, sidecar with block maps: worst queue of any seed (mean over changed queues)",
			Figure: reversalFigure(ar.on), Goal: "≤1"})
	}
	c, err := nameNodeCallsAt1000(o)
	if err != nil {
		return nil, err
	}
	return append(rows, c...), nil
}

// affinityRun is one scenario under stock, the sidecar with affinity off
// and the sidecar with block maps, seeds 1..n, all in the same run.
type affinityRun struct {
	scenario       string
	stock, off, on []experiment.Result
}

func affinityRuns(scenario string, n int) (affinityRun, error) {
	ar := affinityRun{scenario: scenario, stock: make([]experiment.Result, n), off: make([]experiment.Result, n), on: make([]experiment.Result, n)}
	var tasks []func() error
	for k := 0; k < n; k++ {
		s := int64(k + 1)
		tasks = append(tasks,
			func() (err error) { ar.stock[k], err = experiment.RunStatic(scenario, s, nil); return },
			func() (err error) {
				ar.off[k], err = experiment.RunSidecar(scenario, s, experiment.SidecarOptions{WarmupSeed: s + 100})
				return
			},
			func() (err error) {
				ar.on[k], err = experiment.RunSidecar(scenario, s, experiment.SidecarOptions{WarmupSeed: s + 100, BlockMaps: true})
				return
			})
	}
	return ar, experiment.Parallel(tasks)
}

// rows: mean completion with block maps vs affinity off (goal ≤0.9×) and
// vs stock; the I/O-bound class not slower than stock; the CPU-bound one.
func (ar affinityRun) rows(n int, ioClass, cpuClass string) []Row {
	mean := func(rs []experiment.Result) float64 {
		return meanOver(rs, func(r experiment.Result) float64 { return meanJobTime(r).Seconds() })
	}
	class := func(rs []experiment.Result, c string) float64 {
		return meanOver(rs, func(r experiment.Result) float64 { return meanClassTime(r, c) })
	}
	ms, mf, mo := mean(ar.stock), mean(ar.off), mean(ar.on)
	ss, so, sf := class(ar.stock, ioClass), class(ar.on, ioClass), class(ar.off, ioClass)
	cs, co, cf := class(ar.stock, cpuClass), class(ar.on, cpuClass), class(ar.off, cpuClass)
	sc := ar.scenario
	return []Row{
		{Area: "affinity", Name: fmt.Sprintf("%s (%d seeds): mean job completion, sidecar with block maps vs affinity off", sc, n),
			Figure: dur(mo), Baseline: dur(mf), Ratio: fmt.Sprintf("%.2f×", mo/mf), Goal: "≤0.9×"},
		{Area: "affinity", Name: sc + ": mean job completion, sidecar with block maps vs stock",
			Figure: dur(mo), Baseline: dur(ms), Ratio: fmt.Sprintf("%.2f×", mo/ms), Detail: true},
		{Area: "affinity", Name: fmt.Sprintf("%s: I/O-bound class (%s), sidecar with block maps vs stock (affinity off: %s)", sc, ioClass, dur(sf)),
			Figure: dur(so), Baseline: dur(ss), Ratio: fmt.Sprintf("%.2f×", so/ss), Goal: "≤1.00× (not slower)"},
		{Area: "affinity", Name: fmt.Sprintf("%s: CPU-bound class (%s), sidecar with block maps vs stock (affinity off: %s)", sc, cpuClass, dur(cf)),
			Figure: dur(co), Baseline: dur(cs), Ratio: fmt.Sprintf("%.2f×", co/cs), Detail: true},
	}
}

// meanQueueTime is the mean completion (s) of a queue's jobs.
func meanQueueTime(r experiment.Result, queue string) float64 {
	s, n := 0.0, 0
	for _, j := range r.Jobs {
		if j.Queue == queue {
			s += j.Duration().Seconds()
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return s / float64(n)
}

// nameNodeCallsAt1000: 1,000 running jobs, 2% of them replaced by new jobs
// each cycle, the mini NameNode counting what it answers. With the cache
// and the default budget (200) vs a reader that re-reads every job each
// cycle.
func nameNodeCallsAt1000(o Options) ([]Row, error) {
	const running, churn = 1000, 20
	cycles := 30
	if o.Quick {
		cycles = 10
	}
	fs := hdfsns.New()
	hosts := make([]string, 50)
	var nodes []cluster.Node
	for i := range hosts {
		hosts[i] = fmt.Sprintf("dn%02d", i)
		fs.AddDatanode(hdfsns.Datanode{Host: hosts[i], Rack: fmt.Sprintf("/r%d", i%5)})
		nodes = append(nodes, cluster.Node{ID: hosts[i] + ":8041", Host: hosts[i], Rack: fmt.Sprintf("/r%d", i%5), State: "RUNNING"})
	}
	total := running + churn*cycles
	for j := 0; j < total; j++ {
		reps := make([][]string, 8)
		for b := range reps {
			reps[b] = []string{hosts[(j+b)%50], hosts[(j+b+17)%50], hosts[(j+b+33)%50]}
		}
		fs.AddFile(fmt.Sprintf("/data/job%05d/part-00000", j), 8<<27, 1<<27, reps)
	}
	nn, err := namenode.Start(fs, namenode.Options{})
	if err != nil {
		return nil, err
	}
	defer nn.Close()
	client, err := hdfs.NewClient(hdfs.Options{Addresses: []string{nn.Addr()}, User: "bench"})
	if err != nil {
		return nil, err
	}
	defer client.Close()
	countAll := func() int { return nn.Calls("getFileInfo") + nn.Calls("getListing") + nn.Calls("getBlockLocations") }
	snapAt := func(c int) cluster.Snapshot {
		s := cluster.Snapshot{Time: time.Unix(int64(1000+30*c), 0), Nodes: nodes}
		for j := churn * c; j < churn*c+running; j++ {
			s.Apps = append(s.Apps, cluster.App{ID: fmt.Sprintf("application_1_%05d", j), State: cluster.AppRunning, Queue: "root.q",
				StartedTime: time.Unix(int64(j), 0), Job: &cluster.Job{ID: fmt.Sprintf("job_1_%05d", j), InputPaths: []string{fmt.Sprintf("/data/job%05d", j)}}})
		}
		return s
	}
	ctx := context.Background()
	run := func(fresh bool) (first, steady, peak float64, wall time.Duration) {
		bm := &sidecar.BlockMaps{Reader: client}
		if fresh {
			bm.MaxCallsPerCycle = 1 << 30
		}
		var steadySum, steadyN int
		start := time.Now()
		for c := 0; c < cycles; c++ {
			if fresh {
				bm = &sidecar.BlockMaps{Reader: client, MaxCallsPerCycle: 1 << 30}
			}
			before := countAll()
			bm.Refresh(ctx, snapAt(c))
			made := countAll() - before
			if c == 0 {
				first = float64(made)
			}
			peak = max(peak, float64(made))
			if c >= cycles/2 {
				steadySum += made
				steadyN++
			}
		}
		return first, float64(steadySum) / float64(steadyN), peak, time.Since(start) / time.Duration(cycles)
	}
	f1, s1, p1, w1 := run(false)
	f0, s0, p0, w0 := run(true)
	return []Row{
		{Area: "affinity", Name: fmt.Sprintf("NameNode calls per cycle at %d running jobs (%d new per cycle), cache + budget %d: first cycle / peak / steady state",
			running, churn, sidecar.DefaultMaxNameNodeCalls),
			Figure: fmt.Sprintf("%.0f / %.0f / %.1f", f1, p1, s1), Baseline: fmt.Sprintf("%.0f / %.0f / %.1f (no cache)", f0, p0, s0),
			Ratio: fmt.Sprintf("%.3f× steady", s1/s0)},
		{Area: "affinity", Name: "wall time of the block-map step per cycle at 1,000 running jobs (mini NameNode on loopback)",
			Figure: w1.Round(time.Microsecond).String(), Baseline: w0.Round(time.Microsecond).String() + " (no cache)", Ratio: fmt.Sprintf("%.3f×", float64(w1)/float64(w0)), Detail: true},
	}, nil
}
