package experiment

import (
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
)

// ShieldOutcome is one sidecar run as far as the preemption shield goes
// (issue 37): when each queue's shield and route landed, and what the
// RM's preemption killed, by queue.
type ShieldOutcome struct {
	Result Result
	// ShieldAt and RouteAt are when a disable_preemption=true and a
	// default-node-label-expression naming a partition first landed in
	// YARN, by queue (virtual time).
	ShieldAt, RouteAt map[string]time.Time
	// Together: the queue's first route landed in the same mutation as its
	// shield.
	Together map[string]bool
	// Killed counts the RM's kills by queue; FirstKill is the first.
	Killed    map[string]int
	FirstKill map[string]time.Time
}

// RunShield runs a scenario with the sidecar in apply mode, its
// preemption shield on or off (preemption.shield_steered_queues), after a
// warm-up day (seed+100), and records the shield's timing and the kills.
func RunShield(scenario string, seed int64, shield bool) (ShieldOutcome, error) {
	cfg, _ := sidecar.ParseConfig(nil)
	cfg.Mode = act.ModeApply
	cfg.Preemption.ShieldSteeredQueues = &shield
	out := ShieldOutcome{ShieldAt: map[string]time.Time{}, RouteAt: map[string]time.Time{}, Together: map[string]bool{},
		Killed: map[string]int{}, FirstKill: map[string]time.Time{}}
	r, err := RunSidecar(scenario, seed, SidecarOptions{WarmupSeed: seed + 100, Config: cfg, MCSamples: 50, OnCycle: func(rep sidecar.CycleReport) {
		if rep.Plan == nil || rep.Outcome.Result != act.ResultApplied {
			return
		}
		shielded, routed := map[string]bool{}, map[string]bool{}
		for _, c := range rep.Plan.Changes {
			switch {
			case c.Property == "disable_preemption" && c.To == "true":
				shielded[c.Queue] = true
			case c.Property == "default-node-label-expression" && c.To != "":
				routed[c.Queue] = true
			}
		}
		for q := range shielded {
			if _, ok := out.ShieldAt[q]; !ok {
				out.ShieldAt[q] = rep.Started
			}
		}
		for q := range routed {
			if _, ok := out.RouteAt[q]; !ok {
				out.RouteAt[q] = rep.Started
				out.Together[q] = shielded[q]
			}
		}
	}})
	if err != nil {
		return out, err
	}
	out.Result = r
	for _, e := range r.PreemptionLog {
		out.Killed[e.Queue]++
		if _, ok := out.FirstKill[e.Queue]; !ok {
			out.FirstKill[e.Queue] = e.At
		}
	}
	return out, nil
}
