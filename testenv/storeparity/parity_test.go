package storeparity

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/experiment"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
)

// planLine is what an admin reads of one cycle's plan: every change and
// priority, the result. The version is left out (a counter on a mutable
// store, a hash of the configuration on the file store), and so is the
// validation path (the file store validates locally only).
func planLine(rep sidecar.CycleReport) string {
	if rep.Plan == nil {
		return fmt.Sprintf("no plan: %v", rep.Err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s result=%s", rep.Plan.Time.Format("15:04:05"), rep.Outcome.Result)
	for _, c := range rep.Plan.Changes {
		fmt.Fprintf(&b, " | %s[%s].%s %s->%s limited=%v", c.Queue, c.Partition, c.Property, c.From, c.To, c.Limited)
	}
	for _, p := range rep.Plan.Priorities {
		fmt.Fprintf(&b, " | %s %d->%d", p.AppID, p.From, p.To)
	}
	return b.String()
}

// Issue 34: on a file-store RM (scheduler-conf answers 400) the dry-run
// sidecar rebuilds the live configuration from /ws/v1/cluster/scheduler and
// plans exactly what it plans from scheduler-conf on the same cluster, cycle
// by cycle, on every shipped scenario (the same seed, a warm calibration
// history, dry-run so the two clusters stay the same).
func TestFileStorePlansEqualSchedulerConfPlans(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "sim", "scenarios", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios: %v", err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".yaml")
		t.Run(name, func(t *testing.T) {
			// Enough cycles for plans with changes on every scenario that
			// plans any; fewer where a cycle is slow (10k nodes; HDFS reads).
			cycles := 8
			switch name {
			case "scale-10k":
				cycles = 1
			case "data-split":
				cycles = 4
			}
			run := func(fileStore bool) ([]string, int) {
				sc, err := sim.LoadScenario(name)
				if err != nil {
					t.Fatal(err)
				}
				sc.FileStore = fileStore
				if fileStore {
					sc.ConfStore = "file"
				}
				cfg, _ := sidecar.ParseConfig(nil)
				cfg.Mode = act.ModeDryRun
				var lines []string
				changes := 0
				_, err = experiment.RunSidecar(name, 5, experiment.SidecarOptions{Scenario: sc, Config: cfg, MaxCycles: cycles, Dir: t.TempDir(),
					OnCycle: func(rep sidecar.CycleReport) {
						lines = append(lines, planLine(rep))
						if rep.Plan != nil {
							changes += len(rep.Plan.Changes)
							if fileStore && rep.Plan.ConfSource != act.SourceScheduler {
								t.Errorf("file store: the plan's source is %q, want %q", rep.Plan.ConfSource, act.SourceScheduler)
							}
						}
					}})
				if err != nil {
					t.Fatal(err)
				}
				return lines, changes
			}
			fsLines, fsChanges := run(false)
			fileLines, _ := run(true)
			if len(fsLines) != len(fileLines) {
				t.Fatalf("fs store ran %d cycles, file store %d", len(fsLines), len(fileLines))
			}
			for i := range fsLines {
				if fsLines[i] != fileLines[i] {
					t.Fatalf("cycle %d differs:\n fs store:   %s\n file store: %s", i+1, fsLines[i], fileLines[i])
				}
			}
			t.Logf("%d cycles, %d planned changes, the same on both stores", len(fsLines), fsChanges)
			if os.Getenv("FILESTORE_VERBOSE") != "" {
				for _, l := range fsLines {
					t.Log(l)
				}
			}
		})
	}
}
