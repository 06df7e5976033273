package experiment

import (
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar"
)

// ShieldRun is an exploratory helper (replaced below by the real test).
func TestShieldExplore(t *testing.T) {
	for _, shield := range []bool{true, false} {
		cfg, _ := sidecar.ParseConfig(nil)
		cfg.Mode = sidecar.ModeApply
		cfg.Preemption.ShieldSteeredQueues = &shield
		var log []string
		r, err := RunSidecar("shield-return", 1, SidecarOptions{WarmupSeed: 101, Config: cfg, MCSamples: 50, OnCycle: func(rep sidecar.CycleReport) {
			if rep.Plan == nil {
				return
			}
			for _, c := range rep.Plan.Changes {
				if c.Property == "disable_preemption" || c.Property == "default-node-label-expression" {
					log = append(log, rep.Started.Format("15:04:05")+" "+string(rep.Outcome.Result)+" "+c.Queue+" "+c.Property+"="+c.To)
				}
			}
		}})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("shield=%v preempted=%d lost=%.0f makespan=%s", shield, r.Preempted, r.PreemptedSecs, r.Makespan)
		for _, l := range log {
			t.Log(l)
		}
		for _, e := range r.PreemptionLog {
			t.Logf("kill %s %s %s am=%v lost=%.0f", e.At.Format("15:04:05"), e.Queue, e.Partition, e.AM, e.Lost)
		}
		for _, j := range r.Jobs {
			t.Logf("job %s %s", j.Name, j.Duration().Round(time.Second))
		}
	}
}
