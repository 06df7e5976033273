package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/spf13/cobra"

	"github.com/yarn-sidecar/yarn-sidecar/internal/version"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/report"
)

func init() { register(newRunCmd) }

func newRunCmd() *cobra.Command {
	var f daemonFlags
	var output string
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run the sidecar daemon: a control cycle every interval, /metrics and /report on the listen address",
		Long: `run observes the cluster every interval, learns computing rates, plans per-partition
queue capacities and app priorities, and applies them — only with --apply or mode: apply
in the config; otherwise every cycle is a dry run that is validated with the RM and audited.
SIGTERM or SIGINT stops it after the cycle in progress; a scheduler-conf mutation that has
been sent always finishes its verify (and rollback, if needed) first. In apply mode it then lifts
the preemption shields it set (disable_preemption=true) where lifting kills nothing, restoring the
admin's values, and logs those it left and why (` + "`yarn-sidecar shields lift`" + ` takes them off later).`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			return runDaemon(ctx, &f, output, cmd.OutOrStdout())
		},
	}
	f.add(cmd)
	outputFlag(cmd, &output)
	cmd.Flags().StringVar(&f.listen, "listen", "", "address for /metrics and /report (default from config, 127.0.0.1:9464)")
	return cmd
}

// runDaemon wires the loop, serves metrics and the report, and runs until ctx ends.
// With output json, the one line on stdout is a JSON document giving the
// mode and addresses; everything else is the log, on stderr.
func runDaemon(ctx context.Context, f *daemonFlags, output string, out io.Writer) error {
	d, err := f.build()
	if err != nil {
		return err
	}
	defer d.Close()
	log := d.Log
	// The daemon's writes are rate-limited; a one-shot command the admin
	// runs (apply) is not (its guarantee bands still hold).
	d.Loop.Applier.Rate = act.NewRateLimit(d.Config.Rate)

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		collectors.NewBuildInfoCollector(), version.NewCollector())
	metrics, err := report.NewMetrics(reg, d.Board)
	if err != nil {
		return fmt.Errorf("register metrics: %w", err)
	}
	d.Loop.OnCycle = chainOnCycle(d.Loop.OnCycle, func(rep sidecar.CycleReport) {
		metrics.ObserveCycle(rep, rep.Duration)
		if rep.Err != nil && rep.Snapshot.Time.IsZero() {
			metrics.ObserveError()
		}
	})

	listen := d.Config.Listen
	if f.listen != "" {
		listen = f.listen
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	mux.HandleFunc("/report", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if err := report.Render(w, d.Board.Get(), report.Options{Generated: time.Now()}); err != nil {
			log.Error("render report", "error", err)
		}
	})
	mux.HandleFunc("/status", serveStatus(d.Board))
	if d.Proposals != nil {
		mux.HandleFunc("/proposal", serveProposal(d.Proposals))
	}
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "ok") })
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", listen, err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics server stopped", "error", err)
		}
	}()
	if output == "json" {
		if err := json.NewEncoder(out).Encode(map[string]string{"mode": string(d.Config.Mode), "stateDir": d.Config.StateDir,
			"metrics": "http://" + ln.Addr().String() + "/metrics", "report": "http://" + ln.Addr().String() + "/report"}); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(out, "yarn-sidecar: mode %s, state in %s, metrics at http://%s/metrics, report at http://%s/report\n", d.Config.Mode, d.Config.StateDir, ln.Addr(), ln.Addr())
	}
	log.Info("daemon started", "mode", d.Config.Mode, "interval", d.Config.Interval, "listen", ln.Addr().String(), "state_dir", d.Config.StateDir,
		"store", d.Config.Store, "audit_log", d.Config.AuditLog)

	if d.Config.HA != nil {
		err = runHA(ctx, d, reg)
	} else {
		err = d.Loop.Run(ctx, d.Config.Interval, d.Periodic)
	}
	liftShieldsAtStop(d)
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(shutdownCtx)
	log.Info("daemon stopped")
	return err
}

func chainOnCycle(a, b func(sidecar.CycleReport)) func(sidecar.CycleReport) {
	return func(r sidecar.CycleReport) {
		if a != nil {
			a(r)
		}
		b(r)
	}
}

// newLogger builds the daemon's structured logger.
func newLogger(level string, json bool) hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{Name: "yarn-sidecar", Level: hclog.LevelFromString(level), JSONFormat: json, Output: os.Stderr})
}
