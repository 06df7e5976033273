package act

import "time"

// Mode says whether the sidecar may write to YARN.
type Mode string

// Modes. Dry-run is the default until the config says otherwise.
const (
	ModeDryRun Mode = "dry-run"
	ModeApply  Mode = "apply"
	// ModePropose runs as dry-run and keeps the plan as the admin would
	// apply it (a capacity-scheduler.xml, its diff, the commands) at the
	// daemon's /proposal: for clusters whose files belong to Ambari or
	// Cloudera Manager (issue 34).
	ModePropose Mode = "propose"
)

// RecordsOnly reports whether the mode writes nothing to YARN (dry-run,
// propose).
func (m Mode) RecordsOnly() bool { return m == ModeDryRun || m == ModePropose }

// RateConfig bounds how often the sidecar writes (each mutation makes the
// RM re-initialise its whole queue tree).
type RateConfig struct {
	// MinApplyInterval is the least time between two mutations.
	MinApplyInterval time.Duration `yaml:"min_apply_interval"`
	// MaxMutationsPerHour caps mutations over any sliding hour.
	MaxMutationsPerHour int `yaml:"max_mutations_per_hour"`
	// MinGainPercent skips a plan whose predicted ΣPS gain over what runs
	// now is below this (percent), unless it also changes homes; 0 turns
	// the threshold off (unset = the default).
	MinGainPercent *float64 `yaml:"min_gain_percent"`
	// FlapWindow: a change that undoes one written less than this ago
	// needs a predicted ΣPS gain of FlapGainPercent (ratelimit_flap.go;
	// 0: 15m and 10; a negative window turns the guard off).
	FlapWindow      time.Duration `yaml:"flap_window"`
	FlapGainPercent float64       `yaml:"flap_gain_percent"`
	// ReversalHold: the plan does not move a capacity back against its
	// last change made less than this ago, except toward the admin's value
	// (all the way, or by 10 points), for a guarantee given back or a
	// deadline (sidecar/decide/step_reversal_hold.go). Off unless set (0): it cost
	// gains and goals on the shipped scenarios (BENCHMARKS.md).
	ReversalHold time.Duration `yaml:"reversal_hold"`
	// MinMovePoints: a capacity or maximum-capacity move under this many
	// points of the parent's share keeps the live value, unless it serves
	// a promise or returns to the admin's value
	// (sidecar/decide/step_small_moves.go). Off unless set (0); 5 suggested.
	MinMovePoints float64 `yaml:"min_move_points"`
}
