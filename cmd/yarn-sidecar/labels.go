package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar"
	"github.com/yarn-sidecar/yarn-sidecar/yarn"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

func init() { register(newLabelsCmd) }

func newLabelsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "labels",
		Short: "Node-label partitions laid out from the learned rates (CAM's min-cost flow)",
		Long: `labels plan shows which node types deserve a label of their own, which nodes would carry
it and which queues would get access, from the calibrated rates and the running jobs' demand.
labels apply puts it in place (add-node-labels, replace-node-to-labels, read back, rollback on a
difference, then the queues' access in one scheduler-conf mutation); it writes only with --apply
or mode: apply, and audits every attempt.`,
	}
	cmd.AddCommand(newLabelsSubCmd("plan"), newLabelsSubCmd("apply"))
	return cmd
}

func newLabelsSubCmd(verb string) *cobra.Command {
	var f daemonFlags
	var output string
	cmd := &cobra.Command{
		Use:   verb,
		Short: map[string]string{"plan": "Show the partition layout; changes nothing", "apply": "Apply the partition layout (dry-run unless --apply)"}[verb],
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			if verb == "plan" {
				f.forceDryRun = true
			}
			d, err := f.build()
			if err != nil {
				return err
			}
			defer d.Close()
			ctx := cmd.Context()
			snap, err := d.Loop.Observer.Observe(ctx, time.Time{})
			if err != nil {
				return fmt.Errorf("observe: %w", err)
			}
			if bm := d.Loop.BlockMaps; bm != nil {
				// Where classes' input lives (hdfs.enabled), for the layout.
				bm.Refresh(ctx, snap)
			}
			existing, err := d.LabelAPI.NodeLabels(ctx)
			if err != nil {
				return fmt.Errorf("read node labels: %w", err)
			}
			rep, err := d.Layouter.Propose(snap, existing)
			if err != nil {
				return err
			}
			var applyErr error
			if verb == "apply" {
				applier := *d.Loop.Applier
				applier.Mode = d.Config.Mode
				rep.Result, applyErr = applier.ApplyLabels(ctx, d.LabelAPI, rep.Change)
				if applyErr != nil {
					rep.Error = applyErr.Error()
				}
			}
			if output == "json" {
				if err := writeJSON(cmd.OutOrStdout(), rep); err != nil {
					return err
				}
			} else {
				printLayout(cmd.OutOrStdout(), rep, existing)
			}
			return applyErr
		},
	}
	if verb == "plan" {
		f.addReadOnly(cmd)
	} else {
		f.add(cmd)
	}
	outputFlag(cmd, &output)
	return cmd
}

func printLayout(w io.Writer, rep sidecar.LayoutReport, existing []yarn.Label) {
	tw := newTable(w)
	fmt.Fprintln(tw, "LABEL\tNODE TYPE\tEXCLUSIVE\tNODES TO LABEL\tQUEUES\tSTATE")
	for _, l := range rep.Layout.Labels {
		state := "new"
		for _, e := range existing {
			if e.Name == l.Name {
				state = "label exists"
			}
		}
		if l.Exists {
			state = "in place"
		}
		fmt.Fprintf(tw, "%s\t%s\t%v\t%d\t%s\t%s\n", l.Name, l.NodeType, l.Exclusive, len(l.Nodes), strings.Join(l.Queues, ","), state)
	}
	tw.Flush()
	for _, l := range rep.Layout.Labels {
		fmt.Fprintf(w, "  %s: %s\n", l.Name, l.Reason)
	}
	fmt.Fprintln(w)
	var types []string
	for _, t := range sortedKeys(rep.TypeSlots) {
		types = append(types, fmt.Sprintf("%s=%d", t, rep.TypeSlots[t]))
	}
	fmt.Fprintf(w, "slots by node type: %s (one slot: %s)\n", strings.Join(types, " "), slotText(rep.Slot))
	tw = newTable(w)
	fmt.Fprintln(tw, "CLASS\tSLOTS BY NODE TYPE (min-cost flow)")
	for _, c := range sortedKeys(rep.Layout.Slots) {
		var parts []string
		for _, t := range sortedKeys(rep.Layout.Slots[c]) {
			parts = append(parts, fmt.Sprintf("%s=%d", t, rep.Layout.Slots[c][t]))
		}
		fmt.Fprintf(tw, "%s\t%s\n", c, strings.Join(parts, " "))
	}
	tw.Flush()
	if rep.Layout.Unplaced > 0 {
		fmt.Fprintf(w, "demand beyond the cluster's slots: %d\n", rep.Layout.Unplaced)
	}
	for _, n := range rep.Layout.Notes {
		fmt.Fprintln(w, "note:", n)
	}
	if rep.Result != "" {
		fmt.Fprintf(w, "result: %s", rep.Result)
		if rep.Error != "" {
			fmt.Fprintf(w, " (%s)", rep.Error)
		}
		fmt.Fprintln(w)
	}
}

// slotText says a planning slot: memory, and vcores unless the scheduler
// sizes containers by memory alone.
func slotText(r cluster.Resource) string {
	if r.VCores <= 0 {
		return fmt.Sprintf("%d MB (memory only: DefaultResourceCalculator)", r.MemoryMB)
	}
	return fmt.Sprintf("%d MB, %d vcores", r.MemoryMB, r.VCores)
}
