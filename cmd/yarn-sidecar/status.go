package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/report"
	"github.com/yarn-sidecar/yarn-sidecar/yarn"
)

func init() { register(newStatusCmd) }

func newStatusCmd() *cobra.Command {
	var f daemonFlags
	var output, from string
	cmd := &cobra.Command{
		Use:   "status",
		Short: "The state now: mode, RM, calibration, warnings, and per queue its guarantee (admin → now), use, PS vs fair share, jobs at risk",
		Long: `status prints the report's header and a per-queue table, the way kubectl top lists what
a cluster runs now: per queue and partition the guarantee the admin configured and the one in force
now (% of parent), what the queue uses (% of the partition), and per queue its running jobs' summed
progress share against its fair share and how many of its jobs are at risk of missing a deadline.

With --from it reads a running daemon's /status (its last cycle and history). Without it, it
observes the cluster once (a dry-run cycle: nothing is written to YARN); the admin's values come
from the audit log's first "before" of each property, else from what the RM has now.
-o json prints exactly one JSON document; empty collections are [] (never null).`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			var st sidecar.Status
			var err error
			if from != "" {
				st, err = statusFromDaemon(cmd.Context(), from)
			} else {
				st, err = statusOnce(cmd.Context(), &f)
			}
			if err != nil {
				return err
			}
			if output == "json" {
				return report.WriteStatusJSON(cmd.OutOrStdout(), st)
			}
			return report.WriteStatus(cmd.OutOrStdout(), st)
		},
	}
	f.addReadOnly(cmd)
	outputFlag(cmd, &output)
	cmd.Flags().StringVar(&from, "from", "", "a running daemon's listen address (e.g. http://127.0.0.1:9464): show its last cycle instead of observing")
	return cmd
}

// statusOnce runs one cycle that writes nothing and returns the board.
func statusOnce(ctx context.Context, f *daemonFlags) (sidecar.Status, error) {
	d, err := f.build()
	if err != nil {
		return sidecar.Status{}, err
	}
	defer d.Close()
	d.Loop.Mode = act.ModeDryRun // the board still shows the configured mode
	if rep, err := d.Loop.Once(ctx); rep.Snapshot.Time.IsZero() {
		return sidecar.Status{}, err
	}
	return d.Board.Get(), nil
}

// statusFromDaemon reads a daemon's /status.
func statusFromDaemon(ctx context.Context, base string) (sidecar.Status, error) {
	if !strings.Contains(base, "://") {
		base = "http://" + base
	}
	u := strings.TrimRight(base, "/") + "/status"
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return sidecar.Status{}, fmt.Errorf("daemon address %q: %w", base, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return sidecar.Status{}, fmt.Errorf("read %s: %w", u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return sidecar.Status{}, fmt.Errorf("read %s: %s: %s", u, resp.Status, strings.TrimSpace(string(b)))
	}
	var st sidecar.Status
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		return sidecar.Status{}, fmt.Errorf("read %s: not a status document: %w", u, err)
	}
	return st, nil
}

// serveStatus is the daemon's /status: the board as JSON.
func serveStatus(b *sidecar.StatusBoard) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(b.Get())
	}
}

// recordHeader fills what the header needs from outside the cycle: the RM's
// version (/cluster/info) and the admin's guarantees from the audit log.
// Neither is fatal: the header says "unknown" instead.
func recordHeader(b *sidecar.StatusBoard, client *yarn.Client, auditPath string, log hclog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if v, err := client.RMVersion(ctx); err != nil {
		log.Warn("RM version unknown", "error", err)
	} else {
		sidecar.RecordRM(b, v)
	}
	entries, err := act.ReadAuditFile(auditPath, log)
	if err != nil {
		log.Warn("admin guarantees from the audit log unavailable", "error", err)
	}
	sidecar.SeedAdmin(b, entries)
}
