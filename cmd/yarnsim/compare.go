package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/experiment"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
)

// runCompare is `yarnsim compare --scenario NAME|FILE [--seeds N] [-o
// table|json]`: a what-if for any cluster. The scenario (shipped, or the
// admin's own YAML describing their nodes, queues and workload, possibly
// from a SWIM trace) runs under stock capacities, under the best static
// configuration a sweep on other seeds finds, and with the sidecar
// steering; it prints the per-class table (mean and median completion,
// deadlines met). The benchmark's steering rows run the same code.
func newCompareCmd() *cobra.Command {
	var f compareFlags
	cmd := &cobra.Command{
		Use:   "compare",
		Short: "Run a scenario stock, under the best static configuration a sweep finds, and with the sidecar; print the per-class table",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return compare(f, cmd.OutOrStdout())
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.scenario, "scenario", "", "shipped scenario name ("+fmt.Sprint(sim.Names())+", fb-2009) or a YAML file")
	fs.IntVar(&f.seeds, "seeds", 3, "seeds to run (1..N); the sweep uses other seeds")
	fs.StringVarP(&f.output, "output", "o", "table", "output format: table or json")
	fs.BoolVar(&f.secondDay, "second-day", false, "also run the sidecar's second day (history from a steered day)")
	fs.StringVar(&f.strategy, "strategy", "", "the sidecar's plan.strategy: ps (the default) or replay")
	fs.BoolVar(&f.labels, "allow-node-label-changes", false, "safety.allow_node_label_changes: the sidecar lays out node labels (strategy ps) or lends a node to calibrate (strategy replay); off by default")
	return cmd
}

type compareFlags struct {
	scenario, output string
	strategy         string
	seeds            int
	secondDay        bool
	labels           bool
}

// runCompare runs `yarnsim compare ARGS` as the command line would.
func runCompare(args []string, w io.Writer) error {
	root := newRootCmd()
	root.SetArgs(append([]string{"compare"}, args...))
	root.SetOut(w)
	root.SetErr(w)
	return root.Execute()
}

func compare(f compareFlags, w io.Writer) error {
	scenario, seeds, output, secondDay := &f.scenario, &f.seeds, &f.output, &f.secondDay
	if *scenario == "" {
		return fmt.Errorf("compare: --scenario is required (a shipped name or a YAML file)")
	}
	if *seeds < 1 {
		return fmt.Errorf("compare: --seeds must be at least 1, got %d", *seeds)
	}
	if *output != "table" && *output != "json" {
		return fmt.Errorf("compare: -o must be table or json, got %q", *output)
	}
	if !sidecar.KnownStrategy(f.strategy) {
		return fmt.Errorf("compare: --strategy must be ps or replay, got %q", f.strategy)
	}
	o := experiment.CompareOptions{SecondDay: *secondDay, Labels: f.labels, Strategy: f.strategy}
	for i := 1; i <= *seeds; i++ {
		o.Seeds = append(o.Seeds, int64(i))
	}
	c, err := experiment.Compare(*scenario, o)
	if err != nil {
		return fmt.Errorf("compare %s: %w", *scenario, err)
	}
	t := c.Table()
	if *output == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(t)
	}
	return t.WriteTable(w)
}
