package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/yarn-sidecar/yarn-sidecar/deadline"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/report"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/experiment"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
)

// runDemo is `yarnsim demo` (what `make demo` runs): for lee-gpu, then
// hetero-100, the mini cluster runs once under its stock capacities and
// once with the sidecar steering it through the REST API (after learning
// rates from a previous day's run), then prints the before/after table,
// the deadline report seen mid-run, the plans' reasons and where the HTML
// report is. Everything runs in virtual time on loopback.
func newDemoCmd() *cobra.Command {
	var out, scenarios string
	var seed int64
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run each scenario stock and with the sidecar steering, and print the before/after table (make demo)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runDemo(cmd.OutOrStdout(), out, seed, scenarios)
		},
	}
	cmd.Flags().StringVar(&out, "out", "demo-out", "directory for the HTML reports, audit logs and calibration history")
	cmd.Flags().Int64Var(&seed, "seed", 1, "seed of today's run (yesterday's is seed+100)")
	cmd.Flags().StringVar(&scenarios, "scenarios", "lee-gpu,hetero-100", "comma-separated scenarios")
	return cmd
}

func runDemo(w io.Writer, out string, seed int64, scenarios string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", out, err)
	}
	fmt.Fprintln(w, "yarn-sidecar demo — a Go mini cluster (a stand-in for YARN: it speaks the RM, AM and JobHistory REST")
	fmt.Fprintln(w, "formats and the scheduler-conf API) runs each scenario in virtual time, first with its stock")
	fmt.Fprintln(w, "capacities, then with the sidecar steering it through the REST API.")
	for _, name := range strings.Split(scenarios, ",") {
		if err := demoScenario(w, strings.TrimSpace(name), seed, out); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}

func demoScenario(w io.Writer, name string, seed int64, dir string) error {
	sc, err := sim.LoadScenario(name)
	if err != nil {
		return err
	}
	started := time.Now()
	fmt.Fprintf(w, "\n=== %s: %s\n", sc.Name, strings.Join(strings.Fields(sc.Description), " "))
	stock, err := experiment.RunStatic(name, seed, nil)
	if err != nil {
		return err
	}
	// Keep the cycle whose deadline report has the most jobs with a goal
	// (or, without goals, the most running jobs): the morning's question.
	var snapTime time.Time
	var deadlines []deadline.QueueReport
	best := -1
	var firstApplied *sidecar.CycleReport
	state := filepath.Join(dir, name)
	if err := os.MkdirAll(state, 0o755); err != nil {
		return err
	}
	side, err := experiment.RunSidecar(name, seed, experiment.SidecarOptions{WarmupSeed: seed + 100, Dir: state,
		OnCycle: func(rep sidecar.CycleReport) {
			goals, jobs := 0, 0
			for _, q := range rep.Decision.Deadlines {
				for _, j := range q.Jobs {
					jobs++
					if j.Deadline != nil {
						goals++
					}
				}
			}
			if score := goals*1000 + jobs; score > best {
				best, snapTime, deadlines = score, rep.Snapshot.Time, rep.Decision.Deadlines
			}
			if firstApplied == nil && rep.Outcome.Result == act.ResultApplied {
				r := rep
				firstApplied = &r
			}
		}})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\nJob completion times (virtual), stock capacities vs the sidecar steering (%d cycles, %d plans applied):\n\n", side.Cycles, side.Applied)
	printBeforeAfter(w, stock, side)

	if firstApplied != nil && firstApplied.Plan != nil {
		fmt.Fprintf(w, "\nFirst plan applied (cycle %d), with its reasons:\n", firstApplied.Cycle)
		for _, c := range firstApplied.Plan.Changes {
			fmt.Fprintf(w, "  %s: %s → %s\n", strings.TrimSpace(c.Queue+" "+c.Property), orDash(c.From), orDash(c.To))
		}
		for _, r := range firstApplied.Plan.Reasons {
			fmt.Fprintf(w, "  why: %s\n", r)
		}
	}
	if len(deadlines) > 0 {
		fmt.Fprintf(w, "\nDeadline report at %s (virtual), as `yarn-sidecar deadlines` prints it:\n\n", snapTime.Format("15:04"))
		if err := report.WriteDeadlines(w, snapTime, deadlines); err != nil {
			return err
		}
	}
	path := filepath.Join(dir, "report-"+name+".html")
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	outcomes := &report.Outcomes{Baseline: fmt.Sprintf("the same %d jobs (seed %d) under the stock capacities, no sidecar", len(stock.Jobs), seed),
		BaselineJobs: jobOutcomes(stock.Jobs), Steered: jobOutcomes(side.Jobs)}
	if err := report.Render(f, side.Status, report.Options{Title: "yarn-sidecar demo — " + name, Generated: time.Now(), Outcomes: outcomes}); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	abs, _ := filepath.Abs(path)
	fmt.Fprintf(w, "\nHTML report: %s\naudit log:   %s\n(%s wall time)\n", abs, filepath.Join(state, fmt.Sprintf("audit-%s-%d.jsonl", name, seed)), time.Since(started).Round(100*time.Millisecond))
	return nil
}

// jobOutcomes converts the mini cluster's finished jobs for the report.
func jobOutcomes(jobs []sim.JobResult) []report.JobOutcome {
	out := make([]report.JobOutcome, 0, len(jobs))
	for _, j := range jobs {
		out = append(out, report.JobOutcome{AppID: j.AppID, Name: j.Name, Class: j.Class, Queue: j.Queue, Submit: j.Submit, Finish: j.Finish, Deadline: j.Deadline})
	}
	return out
}

func orDash(s string) string {
	if s == "" {
		return "(unset)"
	}
	return s
}

// printBeforeAfter prints per job (few jobs) or per class (many).
func printBeforeAfter(w io.Writer, stock, side experiment.Result) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if len(stock.Jobs) <= 10 {
		fmt.Fprintln(tw, "JOB\tCLASS\tSTOCK\tSIDECAR\tRATIO")
		s, d := stock.ByName(), side.ByName()
		for _, j := range stock.Jobs {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.2f×\n", j.Name, j.Class, s[j.Name].Round(time.Second), d[j.Name].Round(time.Second), float64(d[j.Name])/float64(s[j.Name]))
		}
		tw.Flush()
		return
	}
	type agg struct {
		n          int
		stock, sid time.Duration
		goals      int
		metS, metD int
	}
	byClass := map[string]*agg{}
	sideByID := map[string]sim.JobResult{}
	for _, j := range side.Jobs {
		sideByID[j.AppID] = j
	}
	all := &agg{}
	for _, j := range stock.Jobs {
		a := byClass[j.Class]
		if a == nil {
			a = &agg{}
			byClass[j.Class] = a
		}
		d := sideByID[j.AppID]
		for _, x := range []*agg{a, all} {
			x.n++
			x.stock += j.Duration()
			x.sid += d.Duration()
			if j.Deadline != nil {
				x.goals++
				if !j.Finish.After(*j.Deadline) {
					x.metS++
				}
				if d.Deadline != nil && !d.Finish.After(*d.Deadline) {
					x.metD++
				}
			}
		}
	}
	classes := make([]string, 0, len(byClass))
	for c := range byClass {
		classes = append(classes, c)
	}
	sort.Strings(classes)
	fmt.Fprintln(tw, "CLASS\tJOBS\tMEAN STOCK\tMEAN SIDECAR\tRATIO\tDEADLINES MET (STOCK → SIDECAR)")
	line := func(name string, a *agg) {
		n := time.Duration(a.n)
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%.2f×\t%d/%d → %d/%d\n", name, a.n, (a.stock / n).Round(time.Second), (a.sid / n).Round(time.Second),
			float64(a.sid)/float64(a.stock), a.metS, a.goals, a.metD, a.goals)
	}
	for _, c := range classes {
		line(c, byClass[c])
	}
	line("all", all)
	tw.Flush()
}
