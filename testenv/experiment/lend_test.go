package experiment

import (
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/gen"
)

// The replay strategy's calibration lend end to end on tuning cluster 41
// (two exclusive GPU partitions no queue is homed on; load 1.0): through
// the mini RM's replace-labels, a node goes to the default partition, comes
// back to its own, and the replay then routes a leaf to a partition it
// could not judge before. The default partition is never left without
// the node count it started with, and no partition ends short of a node.
func TestReplayLendMeasuresAndReturns(t *testing.T) {
	if testing.Short() {
		t.Skip("two days of a generated cluster")
	}
	sc, _, err := gen.Generate(41, gen.Options{})
	if err != nil {
		t.Fatal(err)
	}
	start := map[string]int{}
	for _, nt := range sc.NodeTypes {
		start[nt.Label] += nt.Count
	}
	cfg, err := sidecar.ParseConfig(nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Mode = act.ModeApply
	cfg.Plan.Strategy = sidecar.StrategyReplay
	cfg.Safety.AllowNodeLabelChanges = true
	var lends []sidecar.LendReport
	var routed bool
	var last sidecar.CycleReport
	_, err = RunSidecar(sc.Name, 1, SidecarOptions{Scenario: sc, WarmupSeed: 101, MCSamples: 50, Config: cfg,
		OnCycle: func(rep sidecar.CycleReport) {
			last = rep
			if rep.Lend != nil {
				lends = append(lends, *rep.Lend)
			}
			if rep.Outcome.Result == act.ResultApplied && rep.Plan != nil {
				for _, ch := range rep.Plan.Changes {
					if ch.Property == "default-node-label-expression" && ch.To != "" {
						routed = true
					}
				}
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if len(lends) < 2 {
		t.Fatalf("%d lend writes, want a lend and its return", len(lends))
	}
	out, back := lends[0], lends[1]
	if len(out.Change.Calibrations) != 1 || out.Change.Calibrations[0].Containers <= 0 {
		t.Errorf("lend's exposure %+v, want the lent node's containers (the audit line carries it)", out.Change.Calibrations)
	}
	for id, to := range out.Change.Nodes {
		if to != "" || out.Result != act.ResultApplied {
			t.Fatalf("first lend %v: %s %s, want a node to the default partition, applied", out.Change.Nodes, out.Result, out.Error)
		}
		if back.Change.Nodes[id] == "" || back.Result != act.ResultApplied {
			t.Fatalf("second write %v: %s %s, want %s back", back.Change.Nodes, back.Result, back.Error, id)
		}
	}
	if !routed {
		t.Error("the replay routed no leaf after the lend measured the partition")
	}
	end := map[string]int{}
	for _, n := range last.Snapshot.Nodes {
		end[n.Partition]++
	}
	for p, n := range start {
		if end[p] < n-1 {
			t.Errorf("partition %q ends with %d nodes, started with %d (at most one lent at a time)", p, end[p], n)
		}
	}
	t.Logf("%d lend writes; nodes per partition at the start %v, at the end %v", len(lends), start, end)
}
