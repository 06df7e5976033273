package act

import (
	"math"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// RepairsOnly: the live configuration is predicted to slow a running class
// by more than the repair margin (10%) against the admin's own and the
// plan does not (plan.Repairs, the decision's do-no-harm step), and every
// change of the plan gives back what the sidecar moved (ReturnsOnly). Such a plan passes
// the hourly cap and its reserve like a give-back (GivesBackOnly): the cap
// bounds the moves away from the admin's configuration, and a return can
// only follow one of them. It still waits the least interval, the gain
// threshold and the flap guard.
//
// Why (issue 32): on tuning cluster 45 (run seed 1) the first half hour's
// moves spent the hour's twelve mutations with etl routed to the small
// gpu-a partition at 92% of prod there; from 00:31 every plan moved each
// value back toward the admin's (etl's home, prod and research, etl and
// ml in gpu-a) and each was deferred for 35 minutes — 12 mutations in the
// hour, then the reserve for restores — while etl's CPU-bound classes ran
// on the GPU nodes at 1.9× and 2.3× stock. Letting every return through
// the cap, predicted harm or not, fixed cluster 45 but cost the gains a
// stuck plan kept elsewhere (tuning cluster 10's mean 0.41× → 0.54× stock)
// and reversals (11.7 → 16.9 per queue-hour in the worst queue).
func RepairsOnly(p *plan.Plan) bool {
	return p != nil && len(p.Repairs) > 0 && ReturnsOnly(p)
}

// ReturnsOnly: every change of the plan moves a queue's value toward the
// admin's own (plan.Change.Admin: what the sidecar first saw), and none
// past it — a capacity or ceiling between its live value and the admin's,
// a home set back to the admin's — with no scheduler-wide property and no
// app priority.
func ReturnsOnly(p *plan.Plan) bool {
	if p == nil || len(p.Changes) == 0 || len(p.Priorities) > 0 {
		return false
	}
	for _, c := range p.Changes {
		if c.Queue == "" || c.Admin == nil || !returns(c) {
			return false
		}
	}
	return true
}

// returns: the change moves its value toward the admin's, not past it.
func returns(c plan.Change) bool {
	admin := *c.Admin
	switch c.Property {
	case plan.CapacityProp(c.Partition), plan.MaxCapacityProp(c.Partition):
		return capacityBetween(c.From, c.To, admin)
	}
	return c.To == admin // a home, or any other value: only back to the admin's
}

// capacityBetween: to lies between from and admin, all three written in
// one mode — a percentage, a weight, or an absolute resource whose every
// quantity lies between (Hadoop's "[memory=…,vcores=…]").
func capacityBetween(from, to, admin string) bool {
	f, err1 := schedconf.ParseCapacity(from)
	t, err2 := schedconf.ParseCapacity(to)
	a, err3 := schedconf.ParseCapacity(admin)
	if err1 != nil || err2 != nil || err3 != nil || f.Mode != a.Mode || t.Mode != a.Mode {
		return false
	}
	between := func(f, t, a float64) bool {
		const eps = 1e-6
		return t >= math.Min(f, a)-eps && t <= math.Max(f, a)+eps
	}
	switch a.Mode {
	case schedconf.ModePercentage:
		return between(f.Percent, t.Percent, a.Percent)
	case schedconf.ModeWeight:
		return between(f.Weight, t.Weight, a.Weight)
	case schedconf.ModeAbsolute:
		for r := range mergeKeys(f.Absolute, t.Absolute, a.Absolute) {
			if !between(float64(f.Absolute[r]), float64(t.Absolute[r]), float64(a.Absolute[r])) {
				return false
			}
		}
		return true
	}
	return false
}

func mergeKeys(ms ...map[string]int64) map[string]bool {
	out := map[string]bool{}
	for _, m := range ms {
		for k := range m {
			out[k] = true
		}
	}
	return out
}
