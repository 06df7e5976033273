package main

import (
	"fmt"
	"github.com/spf13/cobra"

	"github.com/yarn-sidecar/yarn-sidecar/deadline"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/report"
)

func init() { register(newDeadlinesCmd) }

func newDeadlinesCmd() *cobra.Command {
	var f daemonFlags
	var output, queue string
	cmd := &cobra.Command{
		Use:   "deadlines",
		Short: "Per queue and job: will each job meet its deadline, with what probability, and what capacity it needs",
		Long: `deadlines observes the cluster once (with each running job's progress from its AM),
takes the per-class task-duration models learned from the JobHistory server, and prints per job
its deadline (from the application tag deadline=<RFC3339> or deadline=+90m, or the class's SLO
in the config), progress, predicted p50/p90 finish (Lee ch. 5 Monte-Carlo, or a progress
extrapolation for classes without history), P(meet), containers held and containers needed to
meet the goal at the configured confidence, and a verdict. It changes nothing in YARN.`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			f.forceDryRun = true
			d, err := f.build()
			if err != nil {
				return err
			}
			defer d.Close()
			if err := checkQueueFlag(d.Client, queue, d.Config.Timeout); err != nil {
				return err
			}
			rep, err := d.Loop.Once(cmd.Context())
			if rep.Snapshot.Time.IsZero() {
				return err
			}
			queues := filterQueue(rep.Decision.Deadlines, queue)
			if output == "json" {
				return writeJSON(cmd.OutOrStdout(), queues)
			}
			s := rep.Decision.Slot
			fmt.Fprintf(cmd.OutOrStdout(), "containers counted in slots of %s (%s)\n", slotText(s.Slot), s.Source)
			return report.WriteDeadlines(cmd.OutOrStdout(), rep.Snapshot.Time, queues)
		},
	}
	f.addReadOnly(cmd)
	outputFlag(cmd, &output)
	cmd.Flags().StringVar(&queue, "queue", "", "only this queue (full path, e.g. root.prod)")
	return cmd
}

func filterQueue(qs []deadline.QueueReport, queue string) []deadline.QueueReport {
	if queue == "" {
		return qs
	}
	out := []deadline.QueueReport{}
	for _, q := range qs {
		if q.Queue == queue {
			out = append(out, q)
		}
	}
	return out
}
