package decide

import (
	"sort"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/deadline"
	"github.com/yarn-sidecar/yarn-sidecar/progress"
	"github.com/yarn-sidecar/yarn-sidecar/sparkobs"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// PSDecider is the decision: PS of the running jobs (eq. 4.1) and the
// PS-fair capacity plan (progress.Plan), turned into queue targets by the
// steps wired in step_pipeline.go. It does no I/O besides persisting the
// first-seen capacities; Table supplies the latest CR table.
type PSDecider struct {
	Table      func() *calibrate.Table
	Classifier calibrate.Classifier
	ClassKey   calibrate.ClassKey
	// Queues restricts steering to these leaves (weights, pinned); empty =
	// every leaf, weighted by its current default-partition capacity.
	Queues map[string]QueueWeight
	// Slot is the container size of a planning slot when Sizer is nil
	// (zero: DefaultSlot).
	Slot cluster.Resource
	// Sizer, when set, reads the slot from what the cluster allocates
	// (slotsize.go); it wins over Slot.
	Sizer *SlotSizer
	// Models are the deadline models per class; SLOs the per-class goals.
	Models func() map[string]deadline.PhaseModel
	// Residuals calibrate the models' finish predictions by how earlier
	// runs of each class ended (HistoryLearner.Residuals); nil: uncalibrated.
	Residuals func() *deadline.Residuals
	// Outlooks are the running Spark apps' remaining work by app ID
	// (SparkLearner.Outlooks): the deadline report judges them by it.
	Outlooks func() map[string]deadline.Outlook
	// SparkApps are the running Spark apps as last read
	// (SparkLearner.SparkApps): the plan weighs them by their tasks left
	// and plans GPU executors at their rates (sparkPlanStep).
	SparkApps  func() []sparkobs.AppView
	SLOs       map[string]time.Duration
	Confidence float64
	Samples    int
	// Priorities lets the decision raise at-risk jobs' app priority.
	Priorities bool
	// KeepRackLocalityReset leaves yarn.scheduler.capacity.rack-locality-full-reset
	// alone even when queues are routed to labelled partitions.
	KeepRackLocalityReset bool
	// RaiseMaxCapacity lets the plan set planned leaves' maximum-capacity
	// to 100 (safety.raise_maximum_capacity); false keeps the admin's
	// ceilings (step_ceilings.go).
	RaiseMaxCapacity bool
	// HarmMarginPercent is the do-no-harm step's margin (step_harm.go; 0:
	// DefaultHarmMarginPercent, negative: off), CalibrationMaxContainers
	// the largest demand a queue sent to calibrate may have (0:
	// DefaultCalibrationMaxContainers).
	HarmMarginPercent        float64
	CalibrationMaxContainers int64
	// IdleWindow is how long after its last demand a queue keeps the
	// admin's guarantee (lendIdleStep, step_lendidle.go; 0:
	// DefaultIdleWindow, negative: off).
	IdleWindow time.Duration
	// ReversalHold is how long a written capacity is protected against
	// being moved back (step_reversal_hold.go; 0 or negative: off).
	ReversalHold time.Duration
	// MinMovePoints is the least capacity move written, in points of the
	// parent (step_small_moves.go; 0 or negative: off).
	MinMovePoints float64
	// Guarantees are the admin's bands (Config.Bands).
	Guarantees GuaranteeBands
	// RMVersion is the ResourceManager's hadoopVersion (/cluster/info):
	// weights are written only from 3.4.
	RMVersion string
	// FirstSeen holds each queue's capacities when the sidecar first saw
	// them (the admin's intent; sidecar.FirstSeen persists them). Nil: an
	// in-memory one (MemorySeen), kept for the decider's lifetime.
	FirstSeen SeenStore
	// ReadCost, when set, gives the effective-rate step (effective.go) the
	// cycle's block maps, processing times and bandwidths.
	ReadCost func() *ReadCost
	// Preemption, when set, bounds the work the RM's preemption would
	// throw away because of a plan (preemptionStep, step_preemption.go).
	Preemption *PreemptionGuard
	// Strategy is the plan's (Config.Plan.Strategy: "" or "ps", "replay");
	// Jobs the history's jobs the replay plays back, ReplayWindow and
	// ReplayEvery its window and hold (step_replay.go).
	Strategy                  string
	Jobs                      func() []calibrate.JobRecord
	ReplayWindow, ReplayEvery time.Duration
	// SkipSteps removes the named steps (Name()) from the decision, for
	// the step ablation only (step_skip.go); never set from the config.
	SkipSteps map[string]bool

	// sent are the queues the plan routed to calibrate, kept until they
	// live elsewhere (calibrationReturnStep).
	sent calibrations
	// samples follow the sent queues' calibration maps
	// (calibrationSampledStep).
	samples calibrationSamples
	homes   homesSince
	// recent is when each leaf last had demand (lendIdleStep).
	recent recentDemand
	// replayHeld is the replay strategy's choice between runs.
	replayHeld replayChoice
	// replaySpark is when each leaf last ran a Spark app (the replay
	// strategy does not route those).
	replaySpark sparkLeaves
	// leafClasses is when each leaf last ran each class (routeClassesStep).
	leafClasses leafClasses
	// LendIdleNodes turns on the replay strategy's calibration lend
	// (step_replay_lend.go): replay with safety.allow_node_label_changes.
	LendIdleNodes bool
	// replayLend is the lend under way and the partitions lent, kept in
	// Lends (loaded at the first decision, saved when it changes).
	replayLend ReplayLend
	Lends      LendKeeper
	lendLoaded bool
	// CheckStepWrites makes Decide fail when a step changes a part of the
	// state its contract (step_contracts.go) does not declare. Tests and
	// experiments only: it prints the whole state after every step.
	CheckStepWrites bool

	// moves are the live capacities' last moves (reversalHoldStep).
	moves capMoves
}

type tableRates struct{ t *calibrate.Table }

func (r tableRates) Rate(class, typ string) (float64, bool) {
	if r.t == nil {
		return 0, false
	}
	return r.t.Ratio(class, typ)
}

// status assembles what the decision saw, for metrics and reports: the
// running jobs' PS and deadline outlook, the CR table, each queue's
// capacity per partition. It changes nothing the decision wants.
func (d *PSDecider) status(s *decideState, dec *Decision) {
	snap := s.Snap
	sh := progress.Compute(progress.Input{Snap: snap, NodeType: s.Types, ClassOf: s.ClassOf, Rates: s.Rates, Slot: s.Slot})
	dec.SumPS, dec.MinPS, dec.BoundPS, dec.UsableBoundPS = sh.Sum, sh.Min, sh.Bound, sh.UsableBound
	fair := map[string]float64{}
	for _, qp := range s.Plan.Queues {
		fair[qp.Path] = qp.FairShare
	}
	perQueue := map[string]int{}
	for _, js := range sh.Jobs {
		perQueue[js.Queue]++
	}
	jr := map[string]deadline.JobReport{}
	for _, qr := range s.Deadlines {
		for _, j := range qr.Jobs {
			jr[j.AppID] = j
		}
	}
	appByID := appsByID(snap)
	for _, js := range sh.Jobs {
		app := appByID[js.AppID]
		st := JobStatus{AppID: js.AppID, Name: app.Name, Queue: js.Queue, Class: js.Class, PS: js.PS, Containers: js.Containers,
			Progress: app.Progress / 100}
		if n := perQueue[js.Queue]; n > 0 {
			st.FairShare = fair[js.Queue] / float64(n)
		}
		if r, ok := jr[js.AppID]; ok {
			st.Deadline, st.PMeet, st.Needed, st.Verdict = r.Deadline, r.PMeet, r.Needed, r.Verdict
			if !r.P50.IsZero() {
				p50, p90 := r.P50, r.P90
				st.P50, st.P90 = &p50, &p90
			}
			for _, c := range r.CDF {
				st.CDF = append(st.CDF, CDFPoint{T: snap.Time.Add(time.Duration(c[0] * float64(time.Second))), P: c[1]})
			}
		}
		dec.Jobs = append(dec.Jobs, st)
	}
	if s.Table != nil {
		for _, class := range s.Table.Classes() {
			for _, typ := range s.Table.Types(class) {
				r, _ := s.Table.Rate(class, typ)
				dec.Rates = append(dec.Rates, RateStatus{Class: class, NodeType: typ, Ratio: r.Ratio, Low: r.Low, High: r.High, Samples: r.Samples, Known: r.Known})
			}
		}
	}
	for _, q := range snap.LeafQueues() {
		for p, c := range q.ByPartition {
			dec.Queues = append(dec.Queues, QueueStatus{Queue: q.Path, Partition: p, Capacity: c.Capacity, AbsCapacity: c.AbsoluteCapacity,
				AbsUsed: c.AbsoluteUsed})
		}
	}
	sort.Slice(dec.Queues, func(i, j int) bool {
		return dec.Queues[i].Queue+"\x00"+dec.Queues[i].Partition < dec.Queues[j].Queue+"\x00"+dec.Queues[j].Partition
	})
}

func (d *PSDecider) readCost() *ReadCost {
	if d.ReadCost == nil {
		return nil
	}
	return d.ReadCost()
}

func ptr(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

// appsByID indexes the snapshot's apps (a scan per job was quadratic).
func appsByID(s cluster.Snapshot) map[string]cluster.App {
	out := make(map[string]cluster.App, len(s.Apps))
	for _, a := range s.Apps {
		out[a.ID] = a
	}
	return out
}
