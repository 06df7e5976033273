package decide

import (
	"sort"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// The guard's shields (preemptionShieldStep sets them): which leaves'
// disable_preemption this sidecar set, and since when. The plumbing
// recovers them from the audit log after a restart (sidecar.RecoverShields)
// and lifts them (sidecar.LiftShields); the guard only keeps the marks.

// Shield is one disable_preemption=true this sidecar set and YARN still
// holds: the queue, when the record that set it was written, and the
// value it replaced (the admin's: "" = unset, the queue inherits), which
// `yarn-sidecar shields lift` restores.
type Shield struct {
	Queue      string    `json:"queue"`
	Since      time.Time `json:"since"`
	AdminValue string    `json:"adminValue"`
}

// AdoptShields tells the guard which shields it set before a restart
// (RecoverShields); call it before the first cycle.
func (g *PreemptionGuard) AdoptShields(shields []Shield) {
	if g.shielded == nil {
		g.shielded = map[string]time.Time{}
	}
	for _, sh := range shields {
		g.shielded[sh.Queue] = sh.Since
	}
}

// Shields lists the shields the guard holds, by queue, with when each was
// set.
func (g *PreemptionGuard) Shields() map[string]time.Time {
	if g == nil {
		return nil
	}
	return shieldSince(g.shielded)
}

// HeldShields is the guard's shields with the admin values the audit log
// records for them (a shield the log does not know restores "", unset).
func (g *PreemptionGuard) HeldShields(fromAudit []Shield) []Shield {
	known := map[string]Shield{}
	for _, s := range fromAudit {
		known[s.Queue] = s
	}
	var out []Shield
	for q, since := range g.Shields() {
		s, ok := known[q]
		if !ok {
			s = Shield{Queue: q, Since: since}
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Queue < out[j].Queue })
	return out
}

// RunShieldStep runs the preemption-shield step alone on targets and
// returns them as the step leaves them. The daemon never calls it (Decide
// runs the step in the pipeline); the plumbing's shield tests
// (sidecar/shield_*_test.go) drive a guard through it, then apply,
// recover and lift its shields as the daemon does.
func RunShieldStep(g *PreemptionGuard, snap cluster.Snapshot, live schedconf.Conf, classOf func(cluster.App) string, ps *PreemptionStatus, targets map[string]plan.QueueTarget) (map[string]plan.QueueTarget, error) {
	tree, err := schedconf.ParseTree(live)
	if err != nil {
		return nil, err
	}
	resolveAbsolute(tree, &snap)
	s := &decideState{Snap: snap, Live: live, Tree: tree, ClassOf: classOf, Preemption: ps, Targets: targets}
	err = preemptionShieldStep{Guard: g}.Run(s)
	return s.Targets, err
}
