package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/learn"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/report"
	"github.com/yarn-sidecar/yarn-sidecar/yarn"
)

func init() { register(newCalibrateCmd) }

func newCalibrateCmd() *cobra.Command {
	var f daemonFlags
	var output, export, imp, since string
	var backfill bool
	cmd := &cobra.Command{
		Use:   "calibrate",
		Short: "Show computing rates per job class × node type from the history; import, export or backfill it",
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			cfg, err := f.loadConfig()
			if err != nil {
				return err
			}
			// Only --import and --backfill add to the history; listing and
			// --export open it read-only and create nothing.
			newLogger(f.logLevel, f.logJSON).Info("state directory", "dir", cfg.StateDir, "store", cfg.Store)
			store, err := openStore(cfg, imp == "" && !backfill)
			if err != nil {
				return err
			}
			defer store.Close()
			w := cmd.OutOrStdout()
			switch {
			case export != "":
				fh, err := os.Create(export)
				if err != nil {
					return err
				}
				n, err := store.Export(fh)
				if cerr := fh.Close(); err == nil {
					err = cerr
				}
				if err != nil {
					return fmt.Errorf("export %s: %w", export, err)
				}
				if output == "json" {
					return writeJSON(w, map[string]any{"exported": n, "file": export})
				}
				fmt.Fprintf(w, "exported %d attempts to %s\n", n, export)
				return nil
			case imp != "":
				fh, err := os.Open(imp)
				if err != nil {
					return err
				}
				defer fh.Close()
				n, err := store.Import(fh)
				if err != nil {
					return fmt.Errorf("import %s: %w", imp, err)
				}
				if output == "json" {
					return writeJSON(w, map[string]any{"imported": n, "file": imp})
				}
				fmt.Fprintf(w, "imported %d new attempts from %s\n", n, imp)
				return nil
			case backfill:
				d, err := parseSince(since)
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
				// The window is measured on the RM's clock (its Date header), as
				// job finish times are: a skewed sidecar host would otherwise
				// read too much or too little history.
				snap, err := client.Observe(cmd.Context(), yarn.ObserveOptions{})
				if err != nil {
					return err
				}
				from := rmNow(cmd, client).Add(-d)
				if err := store.SetCursor(from); err != nil {
					return err
				}
				l := &learn.HistoryLearner{Source: progressSource{client, cmd}, Store: store, Classifier: classifierFrom(cfg), ClassKey: calibrate.ClassKey(cfg.JobClass.By),
					Log: newLogger(f.logLevel, f.logJSON)}
				before, _ := store.Count()
				if err := l.Learn(cmd.Context(), snap); err != nil {
					return err
				}
				after, _ := store.Count()
				fmt.Fprintf(noteWriter(cmd, output), "\nbackfilled %d new attempts from jobs finished since %s (the RM's clock)\n", after-before, from.Format(time.RFC3339))
			}
			all, err := store.All()
			if err != nil {
				return err
			}
			// Jobs JobHistory could not serve, retried or given up: listed
			// (on stderr with -o json, whose stdout stays the rate cells).
			unreadable, err := store.Unreadable(time.Now())
			if err != nil {
				return err
			}
			if len(unreadable) > 0 {
				nw := noteWriter(cmd, output)
				fmt.Fprintf(nw, "%d finished jobs JobHistory could not serve are not learned:\n", len(unreadable))
				for _, u := range unreadable {
					fmt.Fprintf(nw, "  %s\n", report.UnreadableText(u))
				}
				fmt.Fprintln(nw)
			}
			t := calibrate.Estimate(all, calibrate.Options{MinSamples: cfg.Calibrate.MinSamples, HalfLifeRuns: cfg.Calibrate.HalfLifeRuns})
			if output == "json" {
				cells := []rateCell{}
				for _, c := range t.Classes() {
					for _, typ := range t.Types(c) {
						r, _ := t.Rate(c, typ)
						cells = append(cells, rateCell{Class: c, NodeType: typ, Reference: t.Reference(c), Ratio: r.Ratio,
							Low: r.Low, High: r.High, Samples: r.Samples, Known: r.Known})
					}
				}
				return writeJSON(w, cells)
			}
			tw := newTable(w)
			fmt.Fprintln(tw, "CLASS\tNODE TYPE\tCR (× reference)\t90% INTERVAL\tSAMPLES\tREFERENCE")
			for _, c := range t.Classes() {
				for _, typ := range t.Types(c) {
					r, _ := t.Rate(c, typ)
					if !r.Known {
						fmt.Fprintf(tw, "%s\t%s\tunknown (n=%d < %d)\t\t%d\t%s\n", c, typ, r.Samples, cfg.Calibrate.MinSamples, r.Samples, t.Reference(c))
						continue
					}
					fmt.Fprintf(tw, "%s\t%s\t%.2f\t%.2f–%.2f\t%d\t%s\n", c, typ, r.Ratio, r.Low, r.High, r.Samples, t.Reference(c))
				}
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			writeTypeSplits(w, calibrate.TypeSplits(all, calibrate.SplitOptions{}))
			return nil
		},
	}
	f.addReadOnly(cmd)
	for _, name := range []string{"rm", "jhs", "user"} {
		// Only --backfill talks to YARN; the table, --export and --import read the history.
		fl := cmd.Flags().Lookup(name)
		fl.Usage += " (with --backfill only)"
	}
	outputFlag(cmd, &output)
	cmd.Flags().StringVar(&export, "export", "", "write the history to FILE as JSON lines")
	cmd.Flags().StringVar(&imp, "import", "", "add attempts from a JSON-lines FILE (idempotent)")
	cmd.Flags().BoolVar(&backfill, "backfill", false, "read finished jobs from JobHistory into the history")
	cmd.Flags().StringVar(&since, "since", "7d", "with --backfill: how far back (e.g. 7d, 36h)")
	return cmd
}

// rateCell is one CR cell of `calibrate -o json`, in the camelCase every
// other command's JSON uses.
type rateCell struct {
	Class     string `json:"class"`
	NodeType  string `json:"nodeType"`
	Reference string `json:"reference"`
	// Ratio is the CR to the class's reference type; Low and High its 90%
	// interval (meaningful when Known).
	Ratio   float64 `json:"ratio"`
	Low     float64 `json:"low"`
	High    float64 `json:"high"`
	Samples int     `json:"samples"`
	Known   bool    `json:"known"`
}

// rmNow is the RM's clock as of its last answer; the local clock, with a
// note on stderr, when the RM sent no Date header.
func rmNow(cmd *cobra.Command, c *yarn.Client) time.Time {
	if t, ok := c.ServerTime(); ok {
		return t
	}
	fmt.Fprintln(cmd.ErrOrStderr(), "note: the ResourceManager sent no Date header; --since is measured on this host's clock")
	return time.Now()
}

func parseSince(s string) (time.Duration, error) {
	if n, ok := cutSuffix(s, "d"); ok {
		var days int
		if _, err := fmt.Sscanf(n, "%d", &days); err != nil || days <= 0 {
			return 0, fmt.Errorf("--since %q: want e.g. 7d or 36h", s)
		}
		return time.Duration(days) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("--since %q: want e.g. 7d or 36h", s)
	}
	return d, nil
}

func cutSuffix(s, suf string) (string, bool) {
	if len(s) > len(suf) && s[len(s)-len(suf):] == suf {
		return s[:len(s)-len(suf)], true
	}
	return s, false
}

// writeTypeSplits says which node types' hosts run a class at two speeds
// and the node_types rules that would tell them apart.
func writeTypeSplits(w io.Writer, splits []calibrate.TypeSplit) {
	if len(splits) == 0 {
		return
	}
	fmt.Fprintln(w, "\nNode types: hosts of one type run a class at clearly different speeds.")
	for _, h := range learn.NodeTypeHints(splits) {
		fmt.Fprintln(w, "  "+h)
	}
}
