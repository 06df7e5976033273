package sidecar

import (
	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/decide"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/learn"
)

// DeciderParts are what the decider reads besides the config: the learner's
// rates, models and residuals, the node classifier, the planning slot, the
// admin's first-seen capacities, the cluster's yarn-site and the RM's
// version.
type DeciderParts struct {
	Learner    *learn.HistoryLearner
	Classifier calibrate.Classifier
	Sizer      *SlotSizer
	FirstSeen  *FirstSeen
	// YarnSite is the cluster's yarn-site.xml (HADOOP_CONF_DIR; nil: none
	// read), for the preemption guard NewDecider builds (its
	// max_wait_before_kill and max_ignored_over_capacity).
	YarnSite  map[string]string
	RMVersion string
	// Samples overrides deadlines.samples (Monte-Carlo draws per job per
	// cycle) where a simulation runs thousands of cycles; 0 keeps the
	// config's.
	Samples int
	// SkipSteps removes named decide steps (step_skip.go): the
	// experiments' step ablation, never the daemon's.
	SkipSteps map[string]bool
	// CheckStepWrites: see PSDecider.CheckStepWrites (tests only).
	CheckStepWrites bool
	// Lends keeps the replay strategy's calibration lend (nil: in memory).
	Lends *LendStore
}

// NewDecider builds the decision pipeline from the config, as the daemon
// runs it. The daemon, the experiments and yarnsim compare (and so every
// benchmark row that runs the sidecar) build their decider here, so what is
// measured is what admins run; TestOneAssembly fails on a PSDecider
// literal anywhere else outside tests. The preemption guard is built here
// too (the daemon shares it through the decider's Preemption).
func NewDecider(cfg *Config, p DeciderParts) *PSDecider {
	key := calibrate.ClassKey(cfg.JobClass.By)
	samples := cfg.Deadlines.Samples
	if p.Samples > 0 {
		samples = p.Samples
	}
	guard := &PreemptionGuard{Config: cfg.Preemption, YarnSite: p.YarnSite, ClassKey: key, Models: p.Learner.Models, Sizer: p.Sizer}
	d := &PSDecider{Table: p.Learner.Table, Classifier: p.Classifier, ClassKey: key, Queues: queueWeights(cfg.Queues), Sizer: p.Sizer,
		Models: p.Learner.Models, Residuals: p.Learner.Residuals, SLOs: cfg.Deadlines.SLO, Confidence: cfg.Deadlines.Confidence, Samples: samples,
		Priorities: cfg.Safety.AllowPriorityChanges, KeepRackLocalityReset: cfg.Safety.KeepRackLocalityReset, RaiseMaxCapacity: cfg.Safety.RaiseMaximumCapacity,
		HarmMarginPercent: cfg.Safety.HarmMarginPercent, CalibrationMaxContainers: cfg.Safety.CalibrationMaxContainers, IdleWindow: cfg.Safety.IdleWindow,
		ReversalHold: cfg.Rate.ReversalHold, MinMovePoints: cfg.Rate.MinMovePoints,
		Guarantees: cfg.Bands(), RMVersion: p.RMVersion, Preemption: guard, SkipSteps: p.SkipSteps,
		Strategy: cfg.Plan.Strategy, LendIdleNodes: cfg.Plan.Strategy == StrategyReplay && cfg.Safety.AllowNodeLabelChanges, Jobs: p.Learner.Jobs, ReplayWindow: cfg.Plan.Window, ReplayEvery: cfg.Plan.Every}
	// Only non-nil stores go into the interfaces: a nil *FirstSeen in
	// decide.SeenStore would not read as nil (the decider keeps its first
	// values in memory when FirstSeen is nil).
	if p.FirstSeen != nil {
		d.FirstSeen = p.FirstSeen
	}
	if p.Lends != nil {
		d.Lends = p.Lends
	}
	return d
}

// queueWeights is what the decision reads of the steered queues: their
// weights and pins (their guarantees reach it as cfg.Bands()).
func queueWeights(qs map[string]QueueConfig) map[string]decide.QueueWeight {
	if qs == nil {
		return nil
	}
	out := make(map[string]decide.QueueWeight, len(qs))
	for q, qc := range qs {
		out[q] = decide.QueueWeight{Weight: qc.Weight, Pinned: qc.Pinned}
	}
	return out
}
