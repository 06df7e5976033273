// Command yarn-sidecar observes a YARN cluster, learns how fast each node type
// runs each job class, and steers the Capacity Scheduler's per-partition queue
// capacities and app priorities through YARN's own REST APIs.
package main

import (
	"fmt"
	"os"
	"sort"

	"github.com/spf13/cobra"

	"github.com/yarn-sidecar/yarn-sidecar/internal/manpage"
	"github.com/yarn-sidecar/yarn-sidecar/internal/version"
)

// subcommands is filled by each subcommand file's init, one file per
// subcommand, so that adding one never touches another.
var subcommands []func() *cobra.Command

func register(f func() *cobra.Command) { subcommands = append(subcommands, f) }

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "yarn-sidecar",
		Short:         "Steer YARN's Capacity Scheduler on heterogeneous clusters",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version.Get().String(),
	}
	root.SetVersionTemplate("yarn-sidecar {{.Version}}\n")
	var cmds []*cobra.Command
	for _, f := range subcommands {
		cmds = append(cmds, f())
	}
	sort.Slice(cmds, func(i, j int) bool { return cmds[i].Name() < cmds[j].Name() })
	root.AddCommand(cmds...)
	root.AddCommand(manpage.Command("yarn-sidecar"))
	return root
}

func main() {
	if err := newRootCmd().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "yarn-sidecar:", err)
		os.Exit(1)
	}
}
