package experiment

import (
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
)

// Issue 15: the sidecar never writes a guarantee outside its band, in any
// mode, on any partition — checked on every plan of the benchmark
// scenarios that fit the test budget (the trees bench row checks every
// steering scenario, hetero-100 and fb-2009 included). Each applied plan's
// changes carry the admin's values, too (adminValueCheck).
func TestGuaranteesHoldOnEveryPlan(t *testing.T) {
	for _, scenario := range []string{"lee-gpu", "lee-toy", "nested-weights", "nested-absolute"} {
		t.Run(scenario, func(t *testing.T) {
			t.Parallel()
			if testing.Short() && scenario != "lee-gpu" {
				t.Skip("short")
			}
			cfg, _ := sidecar.ParseConfig(nil)
			cfg.Mode = act.ModeApply
			bc, err := NewBandChecker(scenario, cfg)
			if err != nil {
				t.Fatal(err)
			}
			admin := newAdminValueCheck(t)
			res, err := RunSidecar(scenario, 1, SidecarOptions{WarmupSeed: 101, Config: cfg, MCSamples: 20, OnCycle: func(rep sidecar.CycleReport) {
				bc.Check(rep)
				admin.Check(rep)
			}})
			if err != nil {
				t.Fatal(err)
			}
			if bc.Plans == 0 || res.Applied == 0 || admin.checked == 0 {
				t.Fatalf("no plan was made (%d plans, %d applied): nothing was checked", bc.Plans, res.Applied)
			}
			for _, v := range bc.Violations {
				t.Error(v)
			}
			t.Logf("%d plans, %d applied, checked against the bands; %d values' first changes checked against the admin's", bc.Plans, res.Applied, admin.checked)
		})
	}
}
