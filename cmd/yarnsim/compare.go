package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"

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
func runCompare(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.SetOutput(w)
	scenario := fs.String("scenario", "", "shipped scenario name ("+fmt.Sprint(sim.Names())+", fb-2009) or a YAML file")
	seeds := fs.Int("seeds", 3, "seeds to run (1..N); the sweep uses other seeds")
	output := fs.String("o", "table", "output format: table or json")
	secondDay := fs.Bool("second-day", false, "also run the sidecar's second day (history from a steered day)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *scenario == "" {
		return fmt.Errorf("compare: --scenario is required (a shipped name or a YAML file)")
	}
	if *seeds < 1 {
		return fmt.Errorf("compare: --seeds must be at least 1, got %d", *seeds)
	}
	if *output != "table" && *output != "json" {
		return fmt.Errorf("compare: -o must be table or json, got %q", *output)
	}
	o := experiment.CompareOptions{SecondDay: *secondDay}
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
