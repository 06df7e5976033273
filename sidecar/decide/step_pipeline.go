package decide

import (
	"encoding/json"
	"fmt"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/deadline"
	"github.com/yarn-sidecar/yarn-sidecar/progress"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// decideState is one decision as it passes through the steps. The inputs
// (snapshot, live tree, rates) never change; each step fills in its own
// part. Steps do no I/O and read no clock.
type decideState struct {
	Snap    cluster.Snapshot
	Live    schedconf.Conf
	Tree    *schedconf.Tree
	Slot    cluster.Resource
	Types   map[string]string // node id → node type
	ClassOf func(cluster.App) string

	Table *calibrate.Table
	Rates progress.Rates

	Parts     []progress.PartitionSlots
	Queues    []progress.QueueDemand
	Deadlines []deadline.QueueReport
	// Arriving are the claims of goal jobs whose AM has not reported its
	// tasks yet (arrivingGoalStep), sized by their class's history.
	Arriving []deadlineClaim
	// Holding are the claims for what running goal jobs hold beyond their
	// claims when the RM preempts (goalHoldStep).
	Holding []deadlineClaim
	Plan    progress.CapacityPlan
	// Shares is the planned share of each partition (0..1) for every queue
	// the plan moves, leaves and parents; Fixed are the leaves it leaves
	// as they are (pinned, unlisted, dynamic).
	Shares map[string]map[string]float64
	// Targets are percentages of the parent per partition until the mode
	// step says how each sibling group is written.
	Targets map[string]plan.QueueTarget
	Globals []plan.GlobalChange
	// Lend is a node moved between partitions for calibration
	// (replayLendStep); the loop writes it through the applier.
	Lend       act.LabelChange
	Priorities []plan.PriorityChange
	Notes      []string
	// Urgent are queues whose raise serves a deadline at risk (queue →
	// reason): the rate limit's stated exception (act/ratelimit.go).
	Urgent map[string]string
	// Restores are queues raised back toward the admin's guarantee, or
	// raised for their goal jobs (queue → reason): the moves the rate
	// limit keeps its last mutations of the hour for.
	Restores map[string]string
	// Preemption is what the preemption step saw and did (nil: no guard).
	Preemption *PreemptionStatus
	// Sampled are the queues whose calibration sample this decision found
	// complete, with their running apps (calibrationSampledStep).
	Sampled map[string][]string
	// Calibrations are the plan's calibration moves and their exposure
	// (psPlanStep); Decide keeps those the final targets still make.
	Calibrations []plan.CalibrationExposure
	// Repairs are the running classes the live configuration is predicted
	// to slow by more than the repair margin (DefaultRepairMarginPercent)
	// against the admin's, and the plan does not (harmStep).
	Repairs []string
}

// restores is s.Restores, made on first use, for a step that lists a
// queue in it.
func (s *decideState) restores() map[string]string {
	if s.Restores == nil {
		s.Restores = map[string]string{}
	}
	return s.Restores
}

// decideStep is one named step of the decision (Nomad's
// scheduler/feasible/stack.go: each step its own type, wired in one place).
type decideStep interface {
	Name() string
	Run(s *decideState) error
}

// steps is the decision, in order. A new capability (preemption, affinity,
// node labels) is a new step here, not a branch inside another step.
func (d *PSDecider) steps(seen map[string]SeenValue) []decideStep {
	if d.Strategy == StrategyReplay {
		return d.replaySteps(seen)
	}
	return []decideStep{
		slotsStep{},
		ratesStep{ReadCost: d.ReadCost},
		demandStep{Queues: d.Queues, Seen: seen},
		sparkPlanStep{Apps: d.SparkApps},
		// Before the plan: a queue whose calibration sample ran is not
		// sent to calibrate again.
		calibrationSampledStep{Samples: d.samples, Models: d.Models, CalibrationMax: d.calibrationMax()},
		deadlineStep{Models: d.Models, Residuals: d.Residuals, Outlooks: d.Outlooks, SLOs: d.SLOs, Confidence: d.Confidence, Samples: d.Samples},
		arrivingGoalStep{Guard: d.Preemption, Models: d.Models, SLOs: d.SLOs, Confidence: d.Confidence, Samples: d.Samples},
		psPlanStep{CalibrationMax: d.calibrationMax()},
		routeGainStep{},
		// After the route gain (which leaves goal queues alone) and before
		// the reservations, which hold containers in each queue's home.
		goalRouteStep{},
		// Before the reservations: a goal job's claim may still take
		// from a queue kept at its guarantee (EDF comes first).
		servedFirstStep{Seen: seen},
		goalHoldStep{Guard: d.Preemption, Seen: seen},
		deadlineReserveStep{Seen: seen, Bands: d.Guarantees, Guard: d.Preemption},
		hierarchyStep{},
		targetsStep{},
		idleClusterStep{},
		// Right after the targets, which plan maximum-capacity 100.
		ceilingsStep{Raise: d.RaiseMaxCapacity, Seen: seen},
		// Before the restores: an idle queue sent home from calibration
		// is a move back to the admin's home.
		calibrationReturnStep{Sent: d.sent, Seen: seen},
		// Before the bands (they and the preemption guard only move a
		// target toward the band and the live value, so a raise stays a
		// raise; the rate limit checks the written change).
		restoresStep{Seen: seen},
		guaranteeStep{Bands: d.Guarantees, Seen: seen},
		// After the bands (it only moves targets back to live values) and
		// before the do-no-harm check, which judges what is left.
		reversalHoldStep{Moves: d.moves, Seen: seen, Hold: d.ReversalHold},
		// Like the hold, it only moves targets back to live values.
		smallMovesStep{Seen: seen, MinMove: d.MinMovePoints},
		// After every step that sets a home: a route carries each class
		// of the queue, not only those running now.
		routeClassesStep{Seen: seen, Jobs: d.Jobs, Window: d.ReplayWindow, Ran: d.leafClasses},

		// After the bands (a blend of in-band values stays in band),
		// before the preemption steps (they only move toward live values):
		// no class predicted slower than under the admin's configuration.
		harmStep{Seen: seen, Margin: d.HarmMarginPercent, CalibrationMax: d.calibrationMax()},
		// After the fluid check (what it cannot predict: the next
		// minutes' demand), before the preemption steps.
		lendIdleStep{Seen: seen, Recent: &d.recent, Window: d.IdleWindow},
		// After the bands: it bounds the move that will be written, and
		// only scales it toward the live values, so it stays in band.
		preemptionStep{Guard: d.Preemption},
		// Safe default: work steered into a label partition is not
		// preempted when the partition's owners come back.
		preemptionShieldStep{Guard: d.Preemption, Seen: seen},
		modeStep{RMVersion: d.RMVersion},
		localityResetStep{Keep: d.KeepRackLocalityReset},
		priorityStep{Enabled: d.Priorities},
	}
}

// replaySteps is the replay strategy's decision (step_replay.go): one
// configuration chosen by replaying the history, held for the hour, kept
// in the admin's bands and written in each group's mode.
func (d *PSDecider) replaySteps(seen map[string]SeenValue) []decideStep {
	return []decideStep{
		slotsStep{},
		ratesStep{ReadCost: d.ReadCost},
		replayPlanStep{Jobs: d.Jobs, Seen: seen, Window: d.ReplayWindow, Every: d.ReplayEvery, Held: &d.replayHeld, Spark: d.replaySpark},
		// After the plan: a route to the lent node's partition brings it back.
		replayLendStep{Enabled: d.LendIdleNodes, Jobs: d.Jobs, Window: d.ReplayWindow, Lend: &d.replayLend, Held: &d.replayHeld, Every: d.ReplayEvery, TypeOf: d.Classifier.TypeOf},
		guaranteeStep{Bands: d.Guarantees, Seen: seen},
		modeStep{RMVersion: d.RMVersion},
		localityResetStep{Keep: d.KeepRackLocalityReset, Lending: true},
	}
}

// calibrationMax is the configured bound on a calibration's exposure.
func (d *PSDecider) calibrationMax() int64 {
	if d.CalibrationMaxContainers == 0 {
		return DefaultCalibrationMaxContainers
	}
	return d.CalibrationMaxContainers
}

// Decide implements Decider: the steps above, then the status the reports
// show (assembled apart from the decision, in status of decide.go).
func (d *PSDecider) Decide(snap cluster.Snapshot, live schedconf.Conf) (Decision, error) {
	tree, err := schedconf.ParseTree(live)
	if err != nil {
		return Decision{}, fmt.Errorf("parse live configuration: %w", err)
	}
	resolveAbsolute(tree, &snap)
	s := &decideState{Snap: snap, Live: live, Tree: tree, Slot: ByCalculator(SlotFor(d.Sizer, d.Slot, snap), live), ClassOf: d.ClassKey.ClassOf}
	if d.Table != nil {
		s.Table = d.Table()
	}
	s.Types = d.Classifier.Types(snap.Nodes)
	if d.FirstSeen == nil {
		d.FirstSeen = &MemorySeen{}
	}
	// The one stateful input: what the admin configured when the sidecar
	// first saw each queue (persisted, so bands and weights survive restarts).
	seen, err := d.FirstSeen.Observe(tree)
	if err != nil {
		return Decision{}, err
	}
	withAbsoluteShares(seen, tree, &snap)
	if err := d.FirstSeen.Save(); err != nil {
		return Decision{}, err
	}
	if d.replaySpark == nil {
		d.replaySpark = sparkLeaves{}
	}
	if d.leafClasses == nil {
		d.leafClasses = leafClasses{}
	}
	if d.sent == nil {
		d.sent = calibrations{}
	}
	d.sent.forget(tree)
	if d.samples == nil {
		d.samples, d.homes = calibrationSamples{}, homesSince{}
	}
	d.homes.observe(tree, snap.Time, len(d.homes) == 0)
	if d.moves == nil {
		d.moves = capMoves{}
	}
	d.moves.observe(tree, snap.Time)
	d.samples.follow(d.sent, tree, snap, d.homes)
	setBy := map[string]string{}
	prev := targetValues(s.Targets)
	var before map[string]string
	if d.CheckStepWrites {
		before = stateFields(s)
	}
	if !d.lendLoaded {
		if d.Lends != nil {
			if d.replayLend, err = d.Lends.Load(); err != nil {
				return Decision{}, err
			}
		}
		d.lendLoaded = true
	}
	lendBefore, _ := json.Marshal(d.replayLend)
	steps, err := withoutSkipped(d.steps(seen), d.SkipSteps)
	if err != nil {
		return Decision{}, err
	}
	for _, st := range steps {
		if err := st.Run(s); err != nil {
			return Decision{}, fmt.Errorf("decide step %s: %w", st.Name(), err)
		}
		if d.CheckStepWrites {
			after := stateFields(s)
			if err := checkWrites(st.Name(), before, after); err != nil {
				return Decision{}, err
			}
			before = after
		}
		cur := targetValues(s.Targets)
		chargeChanges(setBy, prev, cur, st.Name())
		prev = cur
	}
	if after, _ := json.Marshal(d.replayLend); string(after) != string(lendBefore) {
		if d.Lends != nil {
			if err := d.Lends.Save(d.replayLend); err != nil {
				return Decision{}, err
			}
		}
	}
	d.sent.record(s.Plan, s.Queues, tree)
	d.samples.sampled(s.Sampled)
	dec := Decision{Lend: s.Lend, Targets: s.Targets, SetBy: setBy, Admin: adminValues(seen), Notes: s.Notes, Deadlines: s.Deadlines, Globals: s.Globals, Priorities: s.Priorities, Urgent: s.Urgent, Restores: s.Restores, Repairs: s.Repairs, Preemption: s.Preemption,
		Predicted: map[string]float64{"sum_ps": s.Plan.SumPS, "sum_ps_bound": s.Plan.Bound, "min_ps_over_fair": s.Plan.MinPS}}
	for _, c := range s.Calibrations {
		if t, ok := s.Targets[c.Queue]; ok && t.DefaultLabelExpression != nil && *t.DefaultLabelExpression == c.Partition {
			dec.Calibrations = append(dec.Calibrations, c)
		}
	}
	d.status(s, &dec)
	dec.Slot = SlotChoice{Slot: s.Slot, Source: SlotFromConfig}
	if d.Sizer != nil {
		dec.Slot = d.Sizer.Choose(snap)
		dec.Slot.Slot = s.Slot
	} else if d.Slot.IsZero() {
		dec.Slot.Source = SlotFromFallback
	}
	dec.Predicted["sum_ps_now"] = dec.SumPS
	return dec, nil
}
