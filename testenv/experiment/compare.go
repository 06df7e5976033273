package experiment

import (
	"math"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// Compare (issue 18) runs one scenario — shipped or an admin's own file —
// three ways over the same seeds: stock (the scenario's queues, the sidecar
// observing in dry-run mode so PS is measured by the same code), the best
// static configuration a skilled admin could set (chosen by a sweep on
// separate seeds, so it never sees the runs it is judged on), and the
// sidecar steering. `yarnsim compare` and the benchmark's steering rows both
// call it.

// DefaultSweepSeeds choose the best static configuration; reported seeds
// start at 1, so the sweep never sees the runs it is judged on.
var DefaultSweepSeeds = []int64{9001, 9002, 9003}

// CompareOptions tune Compare.
type CompareOptions struct {
	Seeds      []int64 // reported seeds (default 1..3)
	SweepSeeds []int64 // default DefaultSweepSeeds
	// SecondDay also runs the sidecar on its second day: the history it
	// starts from was written by a steered day.
	SecondDay bool
	// MCSamples is the sidecar's Monte-Carlo samples per job (default 200).
	MCSamples int
	// Labels lets the steered runs lay out node labels
	// (safety.allow_node_label_changes, off by default).
	Labels bool
	// Strategy is the steered runs' plan.strategy ("": the default).
	Strategy string
	// Family replaces StaticFamily as the sweep's candidates (the nested
	// trees' bench sweeps configurations written in the tree's own mode).
	Family []NamedMutation
}

// Comparison is the outcome of Compare, one Result per seed and mode.
type Comparison struct {
	Scenario   string
	Seeds      []int64
	StaticName string   // the sweep's winner ("stock" when nothing beat it)
	Switches   []Switch // the sidecar's switches in its runs
	Stock      []Result
	Static     []Result
	Sidecar    []Result
	Sidecar2   []Result // second day, when asked
}

// Compare runs the sweep, then stock, best static and sidecar per seed, in
// parallel over the machine's CPUs (each run is deterministic).
func Compare(scenario string, o CompareOptions) (*Comparison, error) {
	if len(o.Seeds) == 0 {
		o.Seeds = []int64{1, 2, 3}
	}
	if len(o.SweepSeeds) == 0 {
		o.SweepSeeds = DefaultSweepSeeds
	}
	sc, err := sim.LoadScenario(scenario)
	if err != nil {
		return nil, err
	}
	family := o.Family
	if len(family) == 0 {
		if family, err = StaticFamily(sc); err != nil {
			return nil, err
		}
	}
	scores := make([]float64, len(family))
	var tasks []func() error
	var mu sync.Mutex
	if len(family) > 1 {
		for i, f := range family {
			for _, s := range o.SweepSeeds {
				tasks = append(tasks, func() error {
					r, err := RunStatic(scenario, s, f.Mutation)
					mu.Lock()
					defer mu.Unlock()
					if err != nil {
						// A configuration whose jobs never finish (e.g. every
						// AM confined to a partition too small for a task) is
						// one the admin would reject: it scores worst.
						scores[i] = math.Inf(1)
						return nil
					}
					scores[i] += MeanCompletion(r.Jobs).Seconds()
					return nil
				})
			}
		}
		if err := Parallel(tasks); err != nil {
			return nil, err
		}
	}
	best := 0
	for i := range scores {
		if scores[i] < scores[best] {
			best = i
		}
	}
	n := len(o.Seeds)
	out := &Comparison{Scenario: scenario, Seeds: o.Seeds, StaticName: family[best].Name, Switches: SidecarSwitches(sc, o),
		Stock: make([]Result, n), Static: make([]Result, n), Sidecar: make([]Result, n)}
	if o.SecondDay {
		out.Sidecar2 = make([]Result, n)
	}
	mc := o.MCSamples
	tasks = nil
	for k, s := range o.Seeds {
		tasks = append(tasks,
			func() error {
				cfg, _ := sidecar.ParseConfig(nil)
				cfg.Mode = act.ModeDryRun
				r, err := RunSidecar(scenario, s, SidecarOptions{WarmupSeed: s + 100, Config: cfg, MCSamples: 50})
				r.Mode = "stock"
				out.Stock[k] = r
				return err
			},
			func() error {
				r, err := RunStatic(scenario, s, family[best].Mutation)
				r.Mode = "static"
				out.Static[k] = r
				return err
			},
			func() error {
				r, err := RunSidecar(scenario, s, SidecarOptions{WarmupSeed: s + 100, MCSamples: mc, Labels: o.Labels, Strategy: o.Strategy})
				out.Sidecar[k] = r
				return err
			})
		if o.SecondDay {
			tasks = append(tasks, func() error {
				r, err := RunSidecar(scenario, s, SidecarOptions{WarmupSeed: s + 100, WarmupSteered: true, MCSamples: mc, Labels: o.Labels, Strategy: o.Strategy})
				out.Sidecar2[k] = r
				return err
			})
		}
	}
	return out, Parallel(tasks)
}

// Parallel runs tasks on the machine's CPUs and returns the first error.
func Parallel(tasks []func() error) error {
	var wg sync.WaitGroup
	work := make(chan func() error)
	errs := make(chan error, len(tasks))
	for w := 0; w < runtime.NumCPU(); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for t := range work {
				if err := t(); err != nil {
					errs <- err
				}
			}
		}()
	}
	for _, t := range tasks {
		work <- t
	}
	close(work)
	wg.Wait()
	close(errs)
	return <-errs
}

// NamedMutation is one member of the static family.
type NamedMutation struct {
	Name     string
	Mutation *schedconf.Mutation // nil: stock
}

// ShortQueue is a queue path's leaf name.
func ShortQueue(q string) string { return q[strings.LastIndex(q, ".")+1:] }

// MeanCompletion is the jobs' mean completion time from submission.
func MeanCompletion(jobs []sim.JobResult) time.Duration {
	if len(jobs) == 0 {
		return 0
	}
	var s time.Duration
	for _, j := range jobs {
		s += j.Duration()
	}
	return s / time.Duration(len(jobs))
}

// MedianCompletion is the jobs' median completion time (the typical, small
// job of a class whose sizes are skewed).
func MedianCompletion(jobs []sim.JobResult) time.Duration {
	if len(jobs) == 0 {
		return 0
	}
	d := make([]time.Duration, len(jobs))
	for i, j := range jobs {
		d[i] = j.Duration()
	}
	sort.Slice(d, func(a, b int) bool { return d[a] < d[b] })
	if len(d)%2 == 1 {
		return d[len(d)/2]
	}
	return (d[len(d)/2-1] + d[len(d)/2]) / 2
}

// DeadlinesMet counts the jobs with a deadline tag and those that finished
// by it.
func DeadlinesMet(jobs []sim.JobResult) (met, total int) {
	for _, j := range jobs {
		if j.Deadline == nil {
			continue
		}
		total++
		if !j.Finish.IsZero() && !j.Finish.After(*j.Deadline) {
			met++
		}
	}
	return met, total
}
