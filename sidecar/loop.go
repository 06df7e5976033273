package sidecar

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/robfig/cron/v3"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/decide"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/learn"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
	"github.com/yarn-sidecar/yarn-sidecar/sparkobs"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// Decision is what the decide step returns for one snapshot
// (sidecar/decide builds it).
type Decision = decide.Decision

// Decider is the pure decision step: a snapshot and the live conf in, a
// Decision out. Wire.go builds one from progress, affinity, deadline and the
// calibration table.
type Decider interface {
	Decide(snap cluster.Snapshot, live schedconf.Conf) (Decision, error)
}

// Learner ingests what the snapshot shows (finished task attempts) into the
// calibration history.
type Learner interface {
	Learn(ctx context.Context, snap cluster.Snapshot) error
}

// CycleReport is what one cycle saw and did, for metrics and reports.
type CycleReport struct {
	Cycle    int64
	Started  time.Time
	Duration time.Duration
	Snapshot cluster.Snapshot
	Decision Decision
	Plan     *plan.Plan
	Outcome  act.Outcome
	Err      error
	// Preemption is what the decision's preemption step saw and did (nil:
	// no guard).
	Preemption *PreemptionStatus
	// Layout is the node-label step's proposal and what it did (nil when off).
	Layout *LayoutReport
	// Lend is the calibration lend's label change and its result (nil: none).
	Lend *LendReport
	// Inputs is the HDFS step's view of running jobs' inputs (nil when off).
	Inputs *InputsReport
	// Unreadable are the finished jobs JobHistory could not serve, being
	// retried or given up (the learner's record; nil without one).
	Unreadable []calibrate.UnreadableJob
	// Spark are the running Spark apps the learner has read (nil without
	// a SparkReporter).
	Spark []sparkobs.AppView
	// Finished are the jobs the learner read as finished this cycle, with
	// the RM's start and finish times (nil without a FinishedReporter).
	Finished []learn.FinishedJob
	// TypeSplits are node types whose hosts run a class at two speeds
	// (nil without a TypeSplitReporter).
	TypeSplits []calibrate.TypeSplit
}

// FinishedReporter is a Learner that says which jobs its last Learn read
// as finished, so the report times them by YARN's clock.
type FinishedReporter interface {
	LastFinished() []learn.FinishedJob
}

// UnreadableReporter is a Learner that keeps jobs it could not read.
type UnreadableReporter interface {
	Unreadable() []calibrate.UnreadableJob
}

// SparkReporter is a Learner that reads Spark apps (SparkLearner): what
// it saw of them, for status and the report.
type SparkReporter interface {
	SparkApps() []sparkobs.AppView
}

// LendReport is a calibration lend's node-label change and what the
// applier did with it.
type LendReport struct {
	Change act.LabelChange `json:"change"`
	Result act.Result      `json:"result"`
	Error  string          `json:"error,omitempty"`
}

// Loop runs control cycles. Run it with Run; one cycle with Once.
type Loop struct {
	Observer act.Observer
	Learner  Learner // may be nil
	Decider  Decider
	Applier  *act.Applier
	Rules    func(snap cluster.Snapshot) plan.SafetyRules
	Mode     act.Mode
	Log      hclog.Logger
	Now      func() time.Time
	// OnCycle, when set, receives each cycle's report (metrics, HTML report).
	OnCycle func(CycleReport)
	// Labels, when set, lays out node-label partitions (CAM's flow) and
	// LabelAPI writes them through the applier.
	Labels   *LabelLayouter
	LabelAPI act.NodeLabelAPI
	// BlockMaps, when set, reads running jobs' HDFS block maps each cycle
	// (cached, within a NameNode call budget) before the learner and the
	// decision run.
	BlockMaps *BlockMaps

	mu    sync.Mutex // one cycle at a time
	cycle int64
}

// Once runs one cycle: observe → learn → decide → plan → act. In dry-run
// mode the applier's API is wrapped in a fresh DryRunAPI, so the same code
// runs and only the writes are recorded.
func (l *Loop) Once(ctx context.Context) (rep CycleReport, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.cycle++
	rep = CycleReport{Cycle: l.cycle, Started: l.now()}
	log := l.logger().With("cycle", l.cycle)
	defer func() {
		rep.Duration = l.now().Sub(rep.Started)
		rep.Err = err
		if l.OnCycle != nil {
			l.OnCycle(rep)
		}
	}()

	snap, err := l.Observer.Observe(ctx, rep.Started)
	if err != nil {
		return rep, fmt.Errorf("observe: %w", err)
	}
	rep.Snapshot = snap
	for _, le := range snap.Errors {
		log.Warn("part of the snapshot could not be read", "what", le.What, "endpoint", le.Endpoint, "error", le.Err)
	}
	if l.BlockMaps != nil {
		rep.Inputs = l.BlockMaps.Refresh(ctx, snap)
		for _, j := range rep.Inputs.Failed() {
			log.Warn("job input unreadable", "app", j.AppID, "error", j.Err)
		}
	}
	if l.Learner != nil {
		if err := l.Learner.Learn(ctx, snap); err != nil {
			// Calibration history is kept; a failed ingest is retried next cycle.
			log.Warn("calibration ingest failed", "error", err)
		}
		if f, ok := l.Learner.(FinishedReporter); ok {
			rep.Finished = f.LastFinished()
		}
		if t, ok := l.Learner.(learn.TypeSplitReporter); ok {
			rep.TypeSplits = t.TypeSplits()
		}
		if u, ok := l.Learner.(UnreadableReporter); ok {
			rep.Unreadable = u.Unreadable()
		}
		if s, ok := l.Learner.(SparkReporter); ok {
			rep.Spark = s.SparkApps()
		}
	}
	live, err := l.Observer.SchedulerConf(ctx)
	if err != nil {
		if errors.Is(err, act.ErrConfNotMutable) {
			log.Error("refusing to act", "error", err)
			rep.Outcome.Result = act.ResultRefused
		}
		return rep, fmt.Errorf("read scheduler-conf: %w", err)
	}
	dec, err := l.Decider.Decide(snap, live)
	if err != nil {
		return rep, fmt.Errorf("decide: %w", err)
	}
	rep.Decision = dec
	rep.Preemption = dec.Preemption
	if t, ok := l.Learner.(learn.PredictionTracker); ok {
		// Learning, not acting: dry-run keeps it too.
		if err := t.Track(snap.Time, dec.Deadlines); err != nil {
			log.Warn("prediction tracking failed", "error", err)
		}
	}
	rules := plan.SafetyRules{}
	if l.Rules != nil {
		rules = l.Rules(snap)
	}
	rules = decide.PreemptionRules(rules, snap, dec.Preemption)
	rules = act.UrgentRules(rules, dec.Urgent)
	plan, err := plan.BuildPlan(snap.Time, live, snap.ConfVersion, dec.Targets, rules)
	if err != nil {
		return rep, fmt.Errorf("build plan: %w", err)
	}
	if s, ok := l.Observer.(act.ConfSourcer); ok {
		plan.ConfSource = s.ConfSource()
	}
	plan.SetGlobals(dec.Globals)
	plan.Priorities = dec.Priorities
	plan.Predicted = dec.Predicted
	plan.Urgent = dec.Urgent
	plan.Calibrations = dec.Calibrations
	for i, c := range plan.Changes {
		plan.Changes[i].SetBy = dec.SetBy[decide.ProvenanceKey(c.Queue, c.Property)]
		if v, ok := dec.Admin[decide.ProvenanceKey(c.Queue, c.Property)]; ok && c.Queue != "" {
			plan.Changes[i].Admin = &v
		}
	}
	plan.Restores = dec.Restores
	plan.Repairs = dec.Repairs
	rep.Plan = plan

	if l.Applier.Validation == nil {
		l.Applier.Validation = &act.RMValidation{} // shared by every cycle's copy
	}
	applier := *l.Applier // copy: the API may be swapped for dry-run
	applier.Mode = l.Mode
	if l.Mode != act.ModeApply {
		applier.API = &act.DryRunAPI{Inner: l.Applier.API}
	}
	applier.Cycle = l.cycle - 1
	out, err := applier.Apply(ctx, plan)
	rep.Outcome = out
	if l.Labels != nil && l.LabelAPI != nil {
		rep.Layout = l.layoutStep(ctx, snap, &applier, log)
	}
	if !dec.Lend.Empty() && l.LabelAPI != nil {
		res, lerr := applier.ApplyLabels(ctx, l.LabelAPI, dec.Lend)
		rep.Lend = &LendReport{Change: dec.Lend, Result: res}
		if lerr != nil {
			rep.Lend.Error = lerr.Error()
			log.Warn("calibration lend not applied", "result", res, "error", lerr)
		}
	}
	log.Info("cycle done", "result", out.Result, "changes", len(plan.Changes), "priorities", len(plan.Priorities), "error", err)
	return rep, err
}

// Run runs a cycle every interval until ctx is cancelled (SIGTERM). A cycle
// in progress finishes its mutation (the applier detaches writes from ctx);
// Run returns after it. Periodic jobs (calibration refresh, reports) run on
// robfig/cron schedules.
func (l *Loop) Run(ctx context.Context, interval time.Duration, periodic map[string]func()) error {
	log := l.logger()
	c := cron.New(cron.WithLogger(cronLogger{log}))
	for spec, f := range periodic {
		if _, err := c.AddFunc(spec, f); err != nil {
			return fmt.Errorf("schedule %q: %w", spec, err)
		}
	}
	c.Start()
	defer func() { <-c.Stop().Done() }()

	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if _, err := l.Once(ctx); err != nil {
			log.Warn("cycle failed", "error", err)
		}
		select {
		case <-ctx.Done():
			log.Info("shutting down: no cycle in progress")
			return nil
		case <-t.C:
		}
	}
}

func (l *Loop) logger() hclog.Logger {
	if l.Log == nil {
		return hclog.NewNullLogger()
	}
	return l.Log
}

func (l *Loop) now() time.Time {
	if l.Now == nil {
		return time.Now()
	}
	return l.Now()
}

// cronLogger adapts hclog to cron's logger.
type cronLogger struct{ l hclog.Logger }

func (c cronLogger) Info(msg string, kv ...any) { c.l.Debug("cron: "+msg, kv...) }
func (c cronLogger) Error(err error, msg string, kv ...any) {
	c.l.Error("cron: "+msg, append(kv, "error", err)...)
}
