package experiment

import (
	"fmt"
	"io"
	"sort"
	"text/tabwriter"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
)

// ModeStats summarise one class under one mode, pooled over the seeds.
type ModeStats struct {
	MeanSeconds   float64 `json:"mean_s"`
	MedianSeconds float64 `json:"median_s"`
	DeadlinesMet  int     `json:"deadlines_met"`
	Deadlines     int     `json:"deadlines"`
}

// ClassRow is one line of the comparison table ("all" for every job).
type ClassRow struct {
	Class    string     `json:"class"`
	Jobs     int        `json:"jobs"` // over all seeds
	Stock    ModeStats  `json:"stock"`
	Static   ModeStats  `json:"best_static"`
	Sidecar  ModeStats  `json:"sidecar"`
	Sidecar2 *ModeStats `json:"sidecar_day2,omitempty"`
}

// ComparisonTable is what `yarnsim compare -o json` prints.
type ComparisonTable struct {
	Scenario   string     `json:"scenario"`
	Seeds      []int64    `json:"seeds"`
	BestStatic string     `json:"best_static"`
	Applied    float64    `json:"sidecar_plans_applied_per_run"`
	Classes    []ClassRow `json:"classes"`
	Switches   []Switch   `json:"sidecar_switches"`
}

// Table summarises the comparison per class, then "all".
func (c *Comparison) Table() ComparisonTable {
	t := ComparisonTable{Scenario: c.Scenario, Seeds: c.Seeds, BestStatic: c.StaticName, Switches: c.Switches}
	for _, r := range c.Sidecar {
		t.Applied += float64(r.Applied) / float64(len(c.Sidecar))
	}
	classes := ClassesOf(c.Stock)
	for _, class := range append(classes, "all") {
		row := ClassRow{Class: class, Jobs: len(jobsOf(c.Stock, class)),
			Stock: statsOf(c.Stock, class), Static: statsOf(c.Static, class), Sidecar: statsOf(c.Sidecar, class)}
		if c.Sidecar2 != nil {
			s := statsOf(c.Sidecar2, class)
			row.Sidecar2 = &s
		}
		t.Classes = append(t.Classes, row)
	}
	return t
}

// ClassesOf lists the job classes of the runs, sorted.
func ClassesOf(rs []Result) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range rs {
		for _, j := range r.Jobs {
			if !seen[j.Class] {
				seen[j.Class] = true
				out = append(out, j.Class)
			}
		}
	}
	sort.Strings(out)
	return out
}

// jobsOf pools the class's jobs over the runs ("all": every job).
func jobsOf(rs []Result, class string) []sim.JobResult {
	var out []sim.JobResult
	for _, r := range rs {
		for _, j := range r.Jobs {
			if class == "all" || j.Class == class {
				out = append(out, j)
			}
		}
	}
	return out
}

func statsOf(rs []Result, class string) ModeStats {
	jobs := jobsOf(rs, class)
	met, total := DeadlinesMet(jobs)
	return ModeStats{MeanSeconds: MeanCompletion(jobs).Seconds(), MedianSeconds: MedianCompletion(jobs).Seconds(), DeadlinesMet: met, Deadlines: total}
}

// WriteTable prints the table an admin reads: per class, mean and median
// completion under stock, the best static configuration and the sidecar,
// the sidecar's ratios, and deadlines met.
func (t ComparisonTable) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "scenario %s, %d seeds; best static configuration (sweep on other seeds): %s; sidecar plans applied per run: %.0f\n\n",
		t.Scenario, len(t.Seeds), t.BestStatic, t.Applied)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	day2 := len(t.Classes) > 0 && t.Classes[0].Sidecar2 != nil
	head := "CLASS\tJOBS\tMEAN STOCK\tMEAN STATIC\tMEAN SIDECAR\tVS STOCK\tVS STATIC\tMEDIAN STOCK\tMEDIAN STATIC\tMEDIAN SIDECAR\tDEADLINES MET STOCK/STATIC/SIDECAR"
	if day2 {
		head += "\tMEAN SIDECAR DAY 2"
	}
	fmt.Fprintln(tw, head)
	for _, r := range t.Classes {
		line := fmt.Sprintf("%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s",
			r.Class, r.Jobs, secs(r.Stock.MeanSeconds), secs(r.Static.MeanSeconds), secs(r.Sidecar.MeanSeconds),
			ratio(r.Sidecar.MeanSeconds, r.Stock.MeanSeconds), ratio(r.Sidecar.MeanSeconds, r.Static.MeanSeconds),
			secs(r.Stock.MedianSeconds), secs(r.Static.MedianSeconds), secs(r.Sidecar.MedianSeconds), goals(r))
		if day2 {
			line += "\t" + secs(r.Sidecar2.MeanSeconds)
		}
		fmt.Fprintln(tw, line)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(t.Switches) > 0 {
		fmt.Fprintln(w, "\nsidecar switches in these runs:")
		for _, s := range t.Switches {
			v := "off"
			if s.On {
				v = "on"
			}
			if s.On == s.Default {
				v += " (default)"
			}
			line := fmt.Sprintf("  %s: %s", s.Name, v)
			if s.Note != "" {
				line += " — " + s.Note
			}
			fmt.Fprintln(w, line)
		}
	}
	return nil
}

func secs(s float64) string {
	return (time.Duration(s * float64(time.Second))).Round(time.Second).String()
}

func ratio(a, b float64) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f×", a/b)
}

func goals(r ClassRow) string {
	if r.Stock.Deadlines == 0 {
		return "-"
	}
	return fmt.Sprintf("%d/%d / %d/%d / %d/%d", r.Stock.DeadlinesMet, r.Stock.Deadlines, r.Static.DeadlinesMet, r.Static.Deadlines, r.Sidecar.DeadlinesMet, r.Sidecar.Deadlines)
}
