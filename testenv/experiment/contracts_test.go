package experiment

import (
	"os"
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar"
)

// TestStepContractsInWholeDecisions runs whole days with every decision
// checking that each step changes only the state its contract lists among
// its writes (sidecar/decide/step_contracts.go): lee-gpu (routes, calibration)
// and shield-return (preemption, the shield) in every run; with
// YARN_SIDECAR_LONG_TESTS=1 also polo-a (deadlines, reservations) and
// shift (a mix that moves: bands, restores, the reversal hold), about a
// minute each, which passed at the commit that added this test.
func TestStepContractsInWholeDecisions(t *testing.T) {
	scenarios := []string{"lee-gpu", "shield-return"}
	if os.Getenv("YARN_SIDECAR_LONG_TESTS") == "1" {
		scenarios = append(scenarios, "polo-a", "shift")
	}
	for _, name := range scenarios {
		t.Run(name, func(t *testing.T) {
			decisions, failed := 0, 0
			_, err := RunSidecar(name, 1, SidecarOptions{WarmupSeed: 101, MCSamples: 20, CheckStepWrites: true,
				OnCycle: func(r sidecar.CycleReport) {
					decisions++
					if r.Err != nil {
						failed++
						if failed <= 3 {
							t.Errorf("cycle %d: %v", r.Cycle, r.Err)
						}
					}
				}})
			if err != nil {
				t.Fatal(err)
			}
			if decisions == 0 {
				t.Fatal("no cycle ran")
			}
			if failed > 0 {
				t.Errorf("%d of %d cycles failed", failed, decisions)
			}
		})
	}
}
