package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
)

func init() {
	register(newPlanCmd)
	register(newApplyCmd)
}

func newPlanCmd() *cobra.Command {
	var f daemonFlags
	var output string
	var verbose bool
	cmd := &cobra.Command{
		Use:   "plan",
		Short: "Show the capacity plan for the cluster as it is now, with reasons; changes nothing",
		Long: `plan observes the cluster once, computes per-partition queue capacities and app
priorities from the learned computing rates and the jobs' goals, validates the result locally
and with the RM's POST /scheduler-conf/validate (locally only when the RM cannot validate, e.g.
on a leveldb store; the output says which), and prints it. It never writes to YARN.`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if output != "xml" && output != "diff" {
				if err := checkOutput(output); err != nil {
					return fmt.Errorf("%w, xml or diff", err)
				}
			}
			f.forceDryRun = true
			d, err := f.build()
			if err != nil {
				return err
			}
			defer d.Close()
			rep, err := d.Loop.Once(cmd.Context())
			if rep.Plan == nil {
				return err
			}
			switch output {
			case "json":
				return writeJSON(cmd.OutOrStdout(), planView(d.Config.Mode, rep, err))
			case "xml", "diff":
				// The plan as the admin would apply it (issue 34).
				p, perr := d.proposal(cmd.Context(), rep.Plan)
				if perr != nil {
					return perr
				}
				if output == "xml" {
					_, werr := io.WriteString(cmd.OutOrStdout(), p.XML)
					return werr
				}
				_, werr := io.WriteString(cmd.OutOrStdout(), p.Diff)
				return werr
			}
			printPlan(cmd.OutOrStdout(), rep, err, verbose)
			return nil
		},
	}
	f.addReadOnly(cmd)
	cmd.Flags().StringVarP(&output, "output", "o", "table", "output format: table, json, xml (the proposed capacity-scheduler.xml) or diff (its unified diff against the live one)")
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "also show which decision step set each value (the JSON output always has setBy)")
	return cmd
}

func newApplyCmd() *cobra.Command {
	var f daemonFlags
	var output string
	cmd := &cobra.Command{
		Use:   "apply",
		Short: "Run one control cycle; writes to YARN only with --apply (or mode: apply)",
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			d, err := f.build()
			if err != nil {
				return err
			}
			defer d.Close()
			rep, err := d.Loop.Once(cmd.Context())
			if rep.Plan != nil {
				if output == "json" {
					_ = writeJSON(cmd.OutOrStdout(), planView(d.Config.Mode, rep, err))
				} else {
					printPlan(cmd.OutOrStdout(), rep, err, false)
				}
			}
			return err
		},
	}
	f.add(cmd)
	outputFlag(cmd, &output)
	return cmd
}

type planJSON struct {
	Mode   act.Mode   `json:"mode"`
	Result act.Result `json:"result"`
	// Validation is "rm" or "local-only" (the RM cannot validate, e.g. a
	// leveldb store); empty when the cycle stopped before validation.
	Validation       act.ValidationPath `json:"validation,omitempty"`
	ValidationReason string             `json:"validationReason,omitempty"`
	Error            string             `json:"error,omitempty"`
	Plan             *plan.Plan         `json:"plan"`
	Notes            []string           `json:"notes,omitempty"`
	Predict          map[string]float64 `json:"predicted,omitempty"`
}

func planView(mode act.Mode, rep sidecar.CycleReport, err error) planJSON {
	v := planJSON{Mode: mode, Result: rep.Outcome.Result, Validation: rep.Outcome.Validation, ValidationReason: rep.Outcome.ValidationReason,
		Plan: rep.Plan, Notes: rep.Decision.Notes, Predict: rep.Decision.Predicted}
	if err != nil {
		v.Error = err.Error()
	}
	return v
}

// printPlan prints the plan as tables; verbose adds the step that set
// each value (Change.SetBy) and the admin's own value (Change.Admin, as
// the sidecar first saw it).
func printPlan(w io.Writer, rep sidecar.CycleReport, err error, verbose bool) {
	p := rep.Plan
	from := fmt.Sprintf("scheduler-conf version %d", p.ConfVersion)
	if p.ConfSource != "" && p.ConfSource != act.SourceSchedulerConf {
		from = fmt.Sprintf("%s (file store, configuration hash %d)", p.ConfSource, p.ConfVersion)
	}
	fmt.Fprintf(w, "plan made at %s from %s: %d change(s), %d priority change(s)\n",
		p.Time.UTC().Format("2006-01-02 15:04:05Z"), from, len(p.Changes), len(p.Priorities))
	if len(p.Changes) > 0 {
		tw := newTable(w)
		head := "QUEUE\tPARTITION\tPROPERTY\tFROM\tTO\tNOTE"
		if verbose {
			head += "\tSET BY\tADMIN'S"
		}
		fmt.Fprintln(tw, head)
		for _, c := range p.Changes {
			part := c.Partition
			if part == "" {
				part = "<default>"
			}
			note := ""
			if c.Limited {
				note = "step-limited"
			}
			line := fmt.Sprintf("%s\t%s\t%s\t%s\t%s\t%s", c.Queue, part, c.Property, orDash(c.From), orDash(c.To), note)
			if verbose {
				admin := "?"
				if c.Admin != nil {
					admin = orDash(*c.Admin)
				}
				line += "\t" + orDash(c.SetBy) + "\t" + admin
			}
			fmt.Fprintln(tw, line)
		}
		tw.Flush()
	}
	if len(p.Priorities) > 0 {
		tw := newTable(w)
		fmt.Fprintln(tw, "APP\tQUEUE\tPRIORITY\tWHY")
		for _, pc := range p.Priorities {
			fmt.Fprintf(tw, "%s\t%s\t%d→%d\t%s\n", pc.AppID, pc.Queue, pc.From, pc.To, pc.Reason)
		}
		tw.Flush()
	}
	if len(p.Reasons) > 0 {
		fmt.Fprintln(w, "why:")
		for _, r := range p.Reasons {
			fmt.Fprintln(w, "  -", r)
		}
	}
	for _, n := range rep.Decision.Notes {
		fmt.Fprintln(w, "note:", n)
	}
	if len(p.Predicted) > 0 {
		var parts []string
		for _, k := range sortedKeys(p.Predicted) {
			parts = append(parts, fmt.Sprintf("%s=%.3f", k, p.Predicted[k]))
		}
		fmt.Fprintln(w, "predicted:", strings.Join(parts, " "))
	}
	fmt.Fprintf(w, "result: %s\n", rep.Outcome.Result)
	switch rep.Outcome.Validation {
	case act.ValidationLocalOnly:
		fmt.Fprintf(w, "validation: local-only (%s)\n", rep.Outcome.ValidationReason)
	case act.ValidationRM:
		fmt.Fprintln(w, "validation: rm")
	}
	if err != nil {
		fmt.Fprintf(w, "error: %v\n", err)
	}
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
