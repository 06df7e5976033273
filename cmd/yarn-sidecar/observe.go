package main

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/yarn-sidecar/yarn-sidecar/yarn"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

func init() { register(newObserveCmd) }

func newObserveCmd() *cobra.Command {
	var f daemonFlags
	var output string
	var jobs bool
	cmd := &cobra.Command{
		Use:   "observe",
		Short: "Print one snapshot of the cluster: nodes per partition, queues per partition, running apps",
		Long: `observe reads the ResourceManager (and, with --jobs, each running MapReduce AM) once and
prints what the sidecar sees. -o json prints the cluster.Snapshot, the stable form documented
in the README for other tools.`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			cfg, err := f.loadConfig()
			if err != nil {
				return err
			}
			log := newLogger(f.logLevel, f.logJSON)
			yc, err := yarnConfig(cfg, log)
			if err != nil {
				return err
			}
			client, err := yarn.New(yc)
			if err != nil {
				return err
			}
			if err := checkAgainstCluster(cfg, f.config, client, log); err != nil {
				return err
			}
			// Placement per node type as the daemon reads it: listings
			// only for apps on partitions that mix node types.
			snap, err := client.Observe(cmd.Context(), yarn.ObserveOptions{Jobs: jobs, NodeType: classifierFrom(cfg).TypeOf,
				ListingBudget: cfg.ListingBudget, JobBudget: cfg.JobBudget} /* stamped with the RM's clock */)
			if err != nil {
				return err
			}
			if output == "json" {
				return writeJSON(cmd.OutOrStdout(), snap)
			}
			printSnapshot(cmd, snap)
			return nil
		},
	}
	f.addReadOnly(cmd)
	outputFlag(cmd, &output)
	cmd.Flags().BoolVar(&jobs, "jobs", false, "also read each running MapReduce job's progress from its AM")
	return cmd
}

func partName(p string) string {
	if p == "" {
		return "<default>"
	}
	return p
}

func printSnapshot(cmd *cobra.Command, s cluster.Snapshot) {
	w := cmd.OutOrStdout()
	fmt.Fprintf(w, "snapshot of %s at %s, scheduler-conf version %d\n\n", s.RM, s.Time.Format(time.RFC3339), s.ConfVersion)
	tw := newTable(w)
	fmt.Fprintln(tw, "PARTITION\tEXCLUSIVE\tNODES\tMEMORY (GiB)\tVCORES\tGPUS\tUSED MEM %")
	for _, p := range s.Partitions {
		used := 0.0
		if p.Total.MemoryMB > 0 {
			used = 100 * float64(p.Used.MemoryMB) / float64(p.Total.MemoryMB)
		}
		fmt.Fprintf(tw, "%s\t%v\t%d\t%d\t%d\t%d\t%.0f\n", partName(p.Name), p.Exclusive, len(p.NodeIDs), p.Total.MemoryMB/1024, p.Total.VCores, p.Total.GPUs, used)
	}
	tw.Flush()
	states := map[cluster.NodeState]int{}
	for _, n := range s.Nodes {
		states[n.State]++
	}
	var st []string
	for k, v := range states {
		st = append(st, fmt.Sprintf("%s=%d", k, v))
	}
	sort.Strings(st)
	fmt.Fprintf(w, "nodes: %s\n\n", strings.Join(st, " "))
	tw = newTable(w)
	fmt.Fprintln(tw, "QUEUE\tPARTITION\tCAPACITY %\tMAX %\tABS CAP %\tABS USED %\tAPPS\tLABEL EXPR")
	for _, q := range s.LeafQueues() {
		parts := make([]string, 0, len(q.ByPartition))
		for p := range q.ByPartition {
			parts = append(parts, p)
		}
		sort.Strings(parts)
		for _, p := range parts {
			c := q.ByPartition[p]
			fmt.Fprintf(tw, "%s\t%s\t%.1f\t%.1f\t%.1f\t%.1f\t%d\t%s\n", q.Path, partName(p), c.Capacity, c.MaxCapacity, c.AbsoluteCapacity, c.AbsoluteUsed, q.NumApplications, q.DefaultLabelExpression)
		}
	}
	tw.Flush()
	fmt.Fprintln(w)
	tw = newTable(w)
	fmt.Fprintln(tw, "APP\tQUEUE\tNAME\tPRIORITY\tCONTAINERS\tPROGRESS\tTAGS")
	for _, a := range s.RunningApps() {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%.0f%%\t%s\n", a.ID, a.Queue, a.Name, a.Priority, a.RunningContainers, a.Progress, strings.Join(a.Tags, ","))
	}
	tw.Flush()
	for _, e := range s.Errors {
		fmt.Fprintf(w, "could not read %s (%s): %s\n", e.What, e.Endpoint, e.Err)
	}
}
