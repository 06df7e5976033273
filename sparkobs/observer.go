package sparkobs

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/spark"
)

// DefaultBudget is a cycle's request budget when none is given: the
// yarn job budget's default (yarn.DefaultJobBudget).
const DefaultBudget = 400

// Reader is what the observer reads Spark's REST API with (*spark.Client).
type Reader interface {
	Running(appID string) (spark.Source, error)
	History(appID, attemptID string) (spark.Source, error)
	Application(ctx context.Context, src spark.Source) (spark.Application, error)
	Executors(ctx context.Context, src spark.Source, all bool, each func(*spark.Executor) error) error
	Stages(ctx context.Context, src spark.Source, status string, each func(*spark.Stage) error) error
	StageAttempt(ctx context.Context, src spark.Source, k spark.StageKey, each func(*spark.Task) error) (spark.Stage, error)
}

// Observer follows Spark apps across cycles: what it read of each, which
// stages' tasks it has turned into samples, which finished apps still
// owe samples (backfilled from the History Server).
type Observer struct {
	r    Reader
	log  hclog.Logger
	apps map[string]*appState
	// done are the finished apps read whole (not read again).
	done map[string]bool
}

type appState struct {
	class    string
	lastRead time.Time
	execGPUs map[string]int
	// slots are the active executors' cores by executor type (the
	// host's node type, ExecutorType), as of the last executors read.
	slots map[string]int
	// execs are the active executors by executor type (for status).
	execs     map[string]int
	needExecs bool
	harvested map[spark.StageKey]bool
	stages    []spark.Stage
	finished  bool // the driver is gone: read it from the History Server
}

// New is an observer reading through r.
func New(r Reader, log hclog.Logger) *Observer {
	if log == nil {
		log = hclog.NewNullLogger()
	}
	return &Observer{r: r, log: log, apps: map[string]*appState{}, done: map[string]bool{}}
}

// IsSpark reports a Spark application (spark.yarn.applicationType:
// SPARK by default, or SPARK-SQL, SPARK-STREAMING, ...).
func IsSpark(a cluster.App) bool { return strings.HasPrefix(strings.ToUpper(a.Type), "SPARK") }

// Cycle is one observe of Spark apps.
type Cycle struct {
	// Stages are each running app's stages as read this cycle or last
	// (the apps not read this cycle keep their last read).
	Stages map[string][]spark.Stage
	// Slots are each read app's executor cores by executor type (its
	// task slots: spark.task.cpus=1), as of its last executors read.
	Slots map[string]map[string]int
	// Executors are each read app's active executors by executor type,
	// as of its last executors read.
	Executors map[string]map[string]int
	// Samples are the calibration samples of the stages that completed
	// since they were last read.
	Samples []calibrate.Sample
	// Requests is how many REST requests the cycle sent; Read the apps
	// read, Skipped the running apps the budget left unread.
	Requests, Read, Skipped int
	// Errors are the reads that failed (the cycle goes on).
	Errors []error
}

// Options of a cycle.
type Options struct {
	// Budget bounds the cycle's requests (0: DefaultBudget; negative: no
	// bound). Apps are read goal first, then never read, then stalest.
	Budget int
	// First marks apps read before all others (those with deadlines).
	First func(cluster.App) bool
	// ClassOf is an app's class (calibrate.ClassKey.ClassOf).
	ClassOf func(cluster.App) string
}

// Observe reads the running Spark apps of apps within the budget: per app
// its stages (one request; the first time also its executors, and again
// when a task names an executor not seen), and each stage that completed
// since, once (its tasks: the samples). Apps that left the RM's running
// list, or whose driver the proxy no longer reaches, are read from the
// History Server by Backfill.
func (o *Observer) Observe(ctx context.Context, now time.Time, apps []cluster.App, nodes Nodes, opts Options) Cycle {
	budget := opts.Budget
	if budget == 0 {
		budget = DefaultBudget
	}
	out := Cycle{Stages: map[string][]spark.Stage{}, Slots: map[string]map[string]int{}, Executors: map[string]map[string]int{}}
	running := map[string]bool{}
	var order []cluster.App
	for _, a := range apps {
		if !IsSpark(a) || a.State != cluster.AppRunning {
			continue
		}
		running[a.ID] = true
		st := o.apps[a.ID]
		if st == nil {
			st = &appState{class: opts.ClassOf(a), harvested: map[spark.StageKey]bool{}, needExecs: true}
			o.apps[a.ID] = st
		}
		order = append(order, a)
	}
	for id, st := range o.apps {
		if !running[id] && !st.finished {
			st.finished = true // finished (or gone): Backfill reads the rest
		}
	}
	first := opts.First
	if first == nil {
		first = func(cluster.App) bool { return false }
	}
	sort.SliceStable(order, func(i, j int) bool {
		fi, fj := first(order[i]), first(order[j])
		if fi != fj {
			return fi
		}
		return o.apps[order[i].ID].lastRead.Before(o.apps[order[j].ID].lastRead)
	})
	count := func(n int) { out.Requests += n }
	for _, a := range order {
		st := o.apps[a.ID]
		if budget >= 0 && out.Requests >= budget {
			out.Skipped++
			if len(st.stages) > 0 {
				out.Stages[a.ID] = st.stages
				out.Slots[a.ID] = st.slots
				out.Executors[a.ID] = st.execs
			}
			continue
		}
		src, err := o.r.Running(a.ID)
		if err != nil {
			out.Errors = append(out.Errors, err)
			continue
		}
		left := -1
		if budget >= 0 {
			left = budget - out.Requests
		}
		n, samples, err := o.readApp(ctx, a.ID, st, src, left, nodes)
		count(n)
		out.Samples = append(out.Samples, samples...)
		if errors.Is(err, spark.ErrNotRunning) {
			st.finished = true
			continue
		}
		if err != nil {
			out.Errors = append(out.Errors, fmt.Errorf("spark app %s: %w", a.ID, err))
			continue
		}
		st.lastRead = now
		out.Read++
		out.Stages[a.ID] = st.stages
		out.Slots[a.ID] = st.slots
		out.Executors[a.ID] = st.execs
	}
	return out
}

// readApp reads an app's stages and its newly completed stages' tasks,
// within left requests (negative: no bound); it returns the requests
// sent.
func (o *Observer) readApp(ctx context.Context, appID string, st *appState, src spark.Source, left int, nodes Nodes) (int, []calibrate.Sample, error) {
	n := 0
	can := func() bool { return left < 0 || n < left }
	readExecs := func() error {
		gpus, slots, execs := map[string]int{}, map[string]int{}, map[string]int{}
		n++
		if err := o.r.Executors(ctx, src, true, func(e *spark.Executor) error {
			gpus[e.ID] = e.GPUs()
			if e.IsActive && !e.IsDriver() && e.RemoveTime.IsZero() {
				h := e.Host()
				typ := ExecutorType(nodes.TypeOf(h), e.GPUs(), nodes.gpus[h])
				slots[typ] += e.TotalCores
				execs[typ]++
			}
			return nil
		}); err != nil {
			return err
		}
		st.execGPUs, st.slots, st.execs, st.needExecs = gpus, slots, execs, false
		return nil
	}
	if st.needExecs {
		if !can() {
			return n, nil, nil
		}
		if err := readExecs(); err != nil {
			return n, nil, err
		}
	}
	if !can() {
		return n, nil, nil
	}
	var stages []spark.Stage
	n++
	if err := o.r.Stages(ctx, src, "", func(s *spark.Stage) error { stages = append(stages, *s); return nil }); err != nil {
		return n, nil, err
	}
	st.stages = stages
	active, held := 0, 0
	for _, s := range stages {
		active += s.NumActiveTasks
	}
	for _, k := range st.slots {
		held += k
	}
	if active > held {
		// More tasks run than the executors last read had cores (none
		// was up then): executors were added (dynamic
		// allocation's ramp-up). Their GPUs and slots are read now.
		if !can() {
			st.needExecs = true
		} else if err := readExecs(); err != nil {
			return n, nil, err
		}
	}
	var out []calibrate.Sample
	for _, s := range stages {
		k := spark.StageKey{StageID: s.StageID, AttemptID: s.AttemptID}
		if s.Status != "COMPLETE" || st.harvested[k] || !can() {
			continue
		}
		read := StageRead{AppID: appID, AppClass: st.class, ExecutorGPUs: st.execGPUs}
		n++
		full, err := o.r.StageAttempt(ctx, src, k, func(t *spark.Task) error { read.Tasks = append(read.Tasks, *t); return nil })
		if err != nil {
			return n, out, err
		}
		read.Stage = full
		for _, t := range read.Tasks {
			if _, ok := st.execGPUs[t.ExecutorID]; !ok && t.ExecutorID != "driver" {
				st.needExecs = true // an executor added since: its GPUs are unknown
			}
		}
		if st.needExecs {
			continue // read the stage again once the executors are known
		}
		st.harvested[k] = true
		out = append(out, Samples(read, nodes)...)
	}
	if len(out) > 0 && src.Proxied() {
		// A running app's executors come and go between stages (dynamic
		// allocation): its slots are re-read at its next read.
		st.needExecs = true
	}
	return n, out, nil
}
