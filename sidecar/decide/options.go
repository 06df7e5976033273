package decide

import "time"

// The plan strategies (plan.strategy in the config).
const (
	StrategyPS     = "ps"
	StrategyReplay = "replay"
)

// QueueWeight is what the decision reads of one steered queue's config
// (sidecar.QueueConfig, converted by sidecar.NewDecider): its PS weight
// and whether it is pinned.
type QueueWeight struct {
	Weight float64
	// Pinned queues are observed and reported but never changed.
	Pinned bool
}

// Guarantee is one queue's guarantee band as the decision takes it
// (sidecar.Guarantee, with the per-queue settings over the default:
// Config.Bands). Min and Max are factors of the first-seen share of the
// parent, Floor an absolute floor (percent of the parent), Pinned: never
// changed.
type Guarantee struct {
	Min, Max float64
	Floor    float64
	Pinned   bool
}

// PreemptionConfig says how the sidecar treats the RM's preemption
// (step_preemption.go). Whether preemption is on is learnt, in this order:
// the RM's own answer (leaf queues' preemptionDisabled in
// /ws/v1/cluster/scheduler: it is what will kill containers), else this
// file's enabled, else HADOOP_CONF_DIR's yarn-site.xml
// (yarn.resourcemanager.scheduler.monitor.enable), else assumed on (the
// safe side).
type PreemptionConfig struct {
	// Enabled is "on" or "off" for RMs that do not report
	// preemptionDisabled; empty = not said.
	Enabled string `yaml:"enabled"`
	// MaxLostWorkPerCycle bounds the container-time of running work the RM
	// is predicted to kill because of one cycle's change; a bigger cut is
	// taken in smaller steps over cycles.
	MaxLostWorkPerCycle time.Duration `yaml:"max_lost_work_per_cycle"`
	// OnPurpose lets the planner cut a busy queue past the bound when the
	// predicted progress-share gain over the remaining run outweighs the
	// work thrown away by GainMargin times (Lee's Algorithm 2 reassigns
	// slots; preemption is the RM's way to do it).
	OnPurpose  bool    `yaml:"on_purpose"`
	GainMargin float64 `yaml:"gain_margin"`
	// ShieldSteeredQueues lets the sidecar set disable_preemption=true on
	// a queue it steers into a label partition while its tasks are short
	// (step_shield.go); nil = true. Off: no shield is set and those it set
	// earlier are lifted once lifting kills nothing.
	ShieldSteeredQueues *bool `yaml:"shield_steered_queues"`
}

// Shield says whether preemption shields may be set (default true).
func (p PreemptionConfig) Shield() bool {
	return p.ShieldSteeredQueues == nil || *p.ShieldSteeredQueues
}

// LendKeeper keeps the replay strategy's calibration lend across restarts
// (sidecar.LendStore writes it to a file). Nil keeps it in memory only.
type LendKeeper interface {
	Load() (ReplayLend, error)
	Save(ReplayLend) error
}
