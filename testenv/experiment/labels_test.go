package experiment

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
)

// The daemon's node-label layout on hetero-100-unlabelled (every node in
// the default partition), against a mini cluster RM that reads the label
// body as a real 3.3.6 RM does (issue 33): the layout lands; and against
// one that answers 200 and reads no labels (as the real RM did with the
// former "nodeLabels" key): every attempt is rolled back, tried once per
// labels.min_interval, and leaves no label behind. The scenario is cut to
// an eighth of its jobs (about 25 over 25 minutes) to keep the run short.

func labelScenario(t *testing.T, readEmpty bool) *sim.Scenario {
	t.Helper()
	sc, err := sim.LoadScenario("hetero-100-unlabelled")
	if err != nil {
		t.Fatal(err)
	}
	gens := append([]sim.GeneratorSpec(nil), sc.Generators...)
	for i := range gens {
		gens[i].Count = max(gens[i].Count/8, 2)
	}
	sc.Generators = gens
	sc.LabelWritesReadEmpty = readEmpty
	return sc
}

type labelRun struct {
	attempts []sidecar.LayoutReport // cycles that tried a change
	last     sidecar.CycleReport
	waits    []string // Waiting of the cycles after a failed attempt
	log      *bytes.Buffer
}

func runLabelLayout(t *testing.T, readEmpty bool, interval time.Duration) labelRun {
	t.Helper()
	cfg, err := sidecar.ParseConfig(nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Mode = act.ModeApply
	cfg.Labels.MinInterval = interval
	run := labelRun{log: &bytes.Buffer{}}
	logger := hclog.New(&hclog.LoggerOptions{Output: run.log, Level: hclog.Warn})
	_, err = RunSidecar("hetero-100-unlabelled", 3, SidecarOptions{WarmupSeed: 103, Labels: true, Config: cfg, MCSamples: 50, Log: logger,
		Scenario: labelScenario(t, readEmpty),
		OnCycle: func(rep sidecar.CycleReport) {
			run.last = rep
			if rep.Layout == nil {
				return
			}
			if rep.Layout.Result != "" {
				run.attempts = append(run.attempts, *rep.Layout)
			} else if len(run.attempts) > 0 && run.attempts[len(run.attempts)-1].Error != "" {
				run.waits = append(run.waits, rep.Layout.Waiting)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	return run
}

func TestLabelLayoutLands(t *testing.T) {
	if testing.Short() {
		t.Skip("a short hetero-100 day")
	}
	run := runLabelLayout(t, false, 10*time.Minute)
	if len(run.attempts) == 0 {
		t.Fatal("the layout never tried a label change")
	}
	first := run.attempts[0]
	if first.Result != act.ResultApplied {
		t.Fatalf("first label change %s: %s", first.Result, first.Error)
	}
	labelled := 0
	for _, n := range run.last.Snapshot.Nodes {
		if n.Partition != "" {
			labelled++
		}
	}
	if labelled < len(first.Change.Nodes) {
		t.Errorf("%d nodes labelled at the end, the first change labelled %d", labelled, len(first.Change.Nodes))
	}
	t.Logf("%d label changes, the first labelled %d nodes (%v); %d nodes labelled at the end", len(run.attempts), len(first.Change.Nodes), first.Change.Add, labelled)
}

func TestLabelLayoutIgnoredByRM(t *testing.T) {
	if testing.Short() {
		t.Skip("a short hetero-100 day")
	}
	const interval = 10 * time.Minute
	run := runLabelLayout(t, true, interval)
	if len(run.attempts) < 2 {
		t.Fatalf("%d attempts; the run should last for at least two min intervals", len(run.attempts))
	}
	var prev time.Time
	for i, a := range run.attempts {
		if a.Result != act.ResultRolledBack || !strings.Contains(a.Error, "want") {
			t.Errorf("attempt %d: %s %q, want rolled back on the read-back", i, a.Result, a.Error)
		}
		at := a.LastAttempt.Time
		if i > 0 && at.Sub(prev) < interval {
			t.Errorf("attempt %d %s after the one before; min interval %s", i, at.Sub(prev), interval)
		}
		// Exactly one per interval: the next is tried as soon as the
		// interval and the stable cycles allow (3 cycles of 30 s).
		if i > 0 && at.Sub(prev) > interval+3*time.Minute {
			t.Errorf("attempt %d came %s after the one before; want about %s", i, at.Sub(prev), interval)
		}
		prev = at
	}
	// The reason is logged once per attempt, not on the cycles between.
	if n := strings.Count(run.log.String(), "node labels not applied"); n != len(run.attempts) {
		t.Errorf("%d log lines with the reason for %d attempts", n, len(run.attempts))
	}
	if len(run.waits) == 0 {
		t.Fatal("no cycle waited after a failed attempt")
	}
	for _, w := range run.waits {
		if w != "" && !strings.Contains(w, "not retried before the min interval") && !strings.Contains(w, "cycles in a row") && w != "nothing to change" {
			t.Errorf("waiting %q does not say why", w)
		}
	}
	// Nothing left behind: no node labelled, no label the sidecar made.
	for _, n := range run.last.Snapshot.Nodes {
		if n.Partition != "" {
			t.Errorf("node %s left in partition %s", n.ID, n.Partition)
		}
	}
	for _, p := range run.last.Snapshot.Partitions {
		if p.Name != "" {
			t.Errorf("label %s left behind", p.Name)
		}
	}
	t.Logf("%d attempts over the run, each rolled back: %s", len(run.attempts), run.attempts[0].Error)
}
