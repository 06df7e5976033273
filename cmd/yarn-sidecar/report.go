package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar/report"
)

func init() { register(newReportCmd) }

func newReportCmd() *cobra.Command {
	var f daemonFlags
	var file, output string
	var cycles int
	var every time.Duration
	cmd := &cobra.Command{
		Use:   "report --html FILE",
		Short: "Write the HTML report (PS over time, CR heatmap, deadline table with CDFs, plans) to a file",
		Long: `report runs dry-run cycles against the cluster (nothing is written to YARN) and writes the
same self-contained HTML page the daemon serves at /report: PS per job over the cycles, the CR
table as a heatmap, the per-queue deadline table with each job's completion-time CDF against
its deadline, and the plans with their reasons. A running daemon's /report shows its whole history.`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			if file == "" {
				return fmt.Errorf("--html FILE is required")
			}
			if cycles < 1 {
				return fmt.Errorf("--cycles must be at least 1, got %d", cycles)
			}
			f.forceDryRun = true
			d, err := f.build()
			if err != nil {
				return err
			}
			defer d.Close()
			for i := 0; i < cycles; i++ {
				if i > 0 {
					select {
					case <-cmd.Context().Done():
						return cmd.Context().Err()
					case <-time.After(every):
					}
				}
				if rep, err := d.Loop.Once(cmd.Context()); rep.Snapshot.Time.IsZero() {
					return err
				}
			}
			tmp := file + ".tmp"
			out, err := os.Create(tmp)
			if err != nil {
				return fmt.Errorf("write report: %w", err)
			}
			if err := report.Render(out, d.Board.Get(), report.Options{Generated: time.Now()}); err != nil {
				out.Close()
				os.Remove(tmp)
				return fmt.Errorf("render report: %w", err)
			}
			if err := out.Close(); err != nil {
				return fmt.Errorf("write report: %w", err)
			}
			if err := os.Rename(tmp, file); err != nil {
				return fmt.Errorf("write report: %w", err)
			}
			abs, _ := filepath.Abs(file)
			if output == "json" {
				return writeJSON(cmd.OutOrStdout(), map[string]any{"report": abs, "cycles": cycles})
			}
			fmt.Fprintf(cmd.OutOrStdout(), "report written to %s\n", abs)
			return nil
		},
	}
	f.addReadOnly(cmd)
	outputFlag(cmd, &output)
	cmd.Flags().StringVar(&file, "html", "", "file to write the HTML report to")
	cmd.Flags().IntVar(&cycles, "cycles", 1, "dry-run cycles to observe before writing (PS over time needs more than one)")
	cmd.Flags().DurationVar(&every, "every", 30*time.Second, "wall time between cycles when --cycles > 1")
	return cmd
}
