package experiment

import (
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
)

// adminValueCheck (issue 32): every queue change the daemon's loop plans
// carries the admin's value of the property (plan.Change.Admin), which the
// rate limit reads to let a plan that only gives back through
// (act.ReturnsOnly). The first applied change of a value starts from the
// admin's own, so there the two must agree. TestGuaranteesHoldOnEveryPlan
// runs it beside the band check, on the same plans.
type adminValueCheck struct {
	t       *testing.T
	first   map[string]bool
	checked int
}

func newAdminValueCheck(t *testing.T) *adminValueCheck {
	return &adminValueCheck{t: t, first: map[string]bool{}}
}

func (a *adminValueCheck) Check(rep sidecar.CycleReport) {
	if rep.Plan == nil || rep.Outcome.Result != act.ResultApplied {
		return
	}
	for _, c := range rep.Plan.Changes {
		if c.Queue == "" {
			continue
		}
		if c.Admin == nil {
			a.t.Errorf("%s %s %s → %s: no admin's value", c.Queue, c.Property, c.From, c.To)
			continue
		}
		key := c.Queue + " " + c.Property
		if a.first[key] {
			continue
		}
		a.first[key] = true
		a.checked++
		if *c.Admin != c.From {
			a.t.Errorf("%s %s: the first applied change starts from %q, the admin's value says %q", c.Queue, c.Property, c.From, *c.Admin)
		}
	}
}
