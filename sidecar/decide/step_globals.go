package decide

import (
	"fmt"
	"strings"

	"github.com/yarn-sidecar/yarn-sidecar/deadline"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// localityResetStep: labelled partitions on heterogeneous clusters are
// mostly compute-only accelerator nodes (Lee §4.2): no DataNode, so every
// map there is at best rack-local, and with rack-locality-full-reset
// (default true) each container waits node-locality-delay missed
// opportunities again — a queue routed there crawls at one container per
// few seconds. When the plan routes a queue to a labelled partition, the
// step sets rack-locality-full-reset=false (unless the admin keeps it).
// With Lending (the replay strategy, whose plan routes only what its
// replay chose) a non-exclusive labelled partition counts as well: its
// idle nodes take the default partition's containers, at best rack-local
// too. (The PS strategy's plans route a queue on such clusters anyway.)
type localityResetStep struct{ Keep, Lending bool }

func (localityResetStep) Name() string { return "rack-locality reset" }

func (st localityResetStep) Run(s *decideState) error {
	routed := false
	for _, qp := range s.Plan.Queues {
		routed = routed || qp.Home != ""
	}
	for _, p := range s.Parts {
		for _, n := range p.Slots {
			routed = routed || (st.Lending && p.Name != "" && !p.Exclusive && n > 0)
		}
	}
	const fullReset = schedconf.Prefix + "rack-locality-full-reset"
	if routed && !st.Keep && strings.TrimSpace(s.Live[fullReset]) != "false" {
		s.Globals = append(s.Globals, plan.GlobalChange{Key: fullReset, Value: "false",
			Reason: "queues run on a labelled partition whose nodes hold little or no HDFS data: after the first rack-local container, later ones need not wait node-locality-delay again (rack-locality-full-reset=false)"})
	}
	return nil
}

// priorityStep raises the app priority of jobs at risk of missing their
// deadline (when the config allows priority changes).
type priorityStep struct{ Enabled bool }

func (priorityStep) Name() string { return "priorities" }

func (st priorityStep) Run(s *decideState) error {
	if !st.Enabled {
		return nil
	}
	appByID := appsByID(s.Snap)
	for _, qr := range s.Deadlines {
		for _, r := range qr.Jobs {
			if r.Verdict != deadline.AtRisk {
				continue
			}
			app := appByID[r.AppID]
			if app.ID == "" || app.State != "RUNNING" || app.Priority >= 10 {
				continue
			}
			s.Priorities = append(s.Priorities, plan.PriorityChange{AppID: app.ID, Queue: app.Queue, From: app.Priority, To: app.Priority + 1,
				Reason: fmt.Sprintf("job %s is at risk of missing its deadline (P(meet)=%.0f%%)", app.Name, 100*ptr(r.PMeet))})
		}
	}
	return nil
}
