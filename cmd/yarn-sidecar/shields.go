package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/decide"
)

func init() { register(newShieldsCmd) }

// newShieldsCmd is `yarn-sidecar shields lift`: an admin's way to take
// off the preemption shields a sidecar set (disable_preemption=true) when
// that sidecar died before it could (issue 37).
func newShieldsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "shields",
		Short: "The preemption shields (disable_preemption=true) this sidecar set: lift them after a crash",
	}
	var f daemonFlags
	var output string
	var force bool
	lift := &cobra.Command{
		Use:   "lift",
		Short: "Restore the admin's disable_preemption values the audit log records under the sidecar's shields (dry-run unless --apply)",
		Long: `lift reads the audit log and the live scheduler configuration, finds each queue whose
disable_preemption=true the sidecar set and YARN still holds, and restores the value the admin had
before it (unset: the queue inherits again). A shield covers every partition of its queue, so one
left behind by a crashed daemon keeps the RM from reclaiming that queue's capacity anywhere.

Without --apply it prints what it would do and writes nothing. With --apply the change goes
through the sidecar's one writer (validation, verify after apply, rollback, one audit record).
A shield whose queue holds more than the RM would leave it (its guarantee × 1.1 in a label
partition, or over its guarantee where another queue waits) is left, and said so: lifting it
would let the RM kill its containers. --force lifts those too.`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			apply := f.apply
			f.apply, f.forceDryRun = false, !apply // the config's mode never decides for this command
			return liftShieldsCmd(cmd.Context(), &f, apply, force, output, cmd.OutOrStdout())
		},
	}
	f.add(lift)
	outputFlag(lift, &output)
	lift.Flags().BoolVar(&force, "force", false, "also lift shields whose removal lets the RM kill containers now")
	cmd.AddCommand(lift)
	return cmd
}

func liftShieldsCmd(ctx context.Context, f *daemonFlags, apply, force bool, output string, out io.Writer) error {
	d, err := f.build()
	if err != nil {
		return err
	}
	defer d.Close()
	ctx, cancel := context.WithTimeout(ctx, 2*d.Config.Timeout+30*time.Second)
	defer cancel()
	records, err := sidecar.RecoverShields(ctx, d.Config.AuditLog, d.Loop.Applier.API)
	if err != nil {
		return err
	}
	var lift sidecar.ShieldLift
	if apply {
		writer := *d.Loop.Applier
		writer.Mode = act.ModeApply
		lift, err = sidecar.LiftShields(ctx, d.Observer, &writer, records, time.Now(), liftOptions(d, force))
	} else {
		lift, err = planShieldLift(ctx, d, records, force)
	}
	if err != nil {
		return err
	}
	return writeShieldLift(out, output, records, lift, apply)
}

// planShieldLift is the dry run: read, plan, write nothing.
func planShieldLift(ctx context.Context, d *Daemon, records []sidecar.Shield, force bool) (sidecar.ShieldLift, error) {
	if len(records) == 0 {
		return sidecar.ShieldLift{}, nil
	}
	snap, err := d.Observer.Observe(ctx, time.Now())
	if err != nil {
		return sidecar.ShieldLift{}, fmt.Errorf("observe: %w", err)
	}
	live, err := d.Observer.SchedulerConf(ctx)
	if err != nil {
		return sidecar.ShieldLift{}, fmt.Errorf("read live scheduler-conf: %w", err)
	}
	return sidecar.PlanShieldLift(snap, live, snap.ConfVersion, records, liftOptions(d, force))
}

// liftOptions reads max_ignored_over_capacity from HADOOP_CONF_DIR's
// yarn-site (the guard's), else Hadoop's default.
func liftOptions(d *Daemon, force bool) sidecar.LiftOptions {
	var site map[string]string
	if d.Guard != nil {
		site = d.Guard.YarnSite
	}
	return sidecar.LiftOptions{Force: force, MaxIgnoredOverCapacity: decide.MaxIgnoredOverCapacity(site)}
}

func writeShieldLift(w io.Writer, output string, records []sidecar.Shield, lift sidecar.ShieldLift, applied bool) error {
	if output == "json" {
		doc := struct {
			Applied bool              `json:"applied"`
			Shields []sidecar.Shield  `json:"shields"`
			Lifted  []sidecar.Shield  `json:"lifted"`
			Left    map[string]string `json:"left"`
			Result  act.Result        `json:"result,omitempty"`
		}{Applied: applied, Shields: nonNil(records), Lifted: nonNil(lift.Lifted), Left: lift.Left, Result: lift.Outcome.Result}
		if doc.Left == nil {
			doc.Left = map[string]string{}
		}
		return json.NewEncoder(w).Encode(doc)
	}
	if len(records) == 0 {
		_, err := fmt.Fprintln(w, "no preemption shield of this sidecar in YARN (audit log and live configuration agree)")
		return err
	}
	verb := "would restore"
	if applied {
		verb = "restored"
	}
	for _, s := range lift.Lifted {
		v := s.AdminValue
		if v == "" {
			v = "unset (inherited)"
		}
		fmt.Fprintf(w, "%s: disable_preemption true -> %s (%s the admin's value; shield set %s)\n", s.Queue, v, verb, s.Since.Format(time.RFC3339))
	}
	left := make([]string, 0, len(lift.Left))
	for q := range lift.Left {
		left = append(left, q)
	}
	sort.Strings(left)
	for _, q := range left {
		fmt.Fprintf(w, "%s: left: %s\n", q, lift.Left[q])
	}
	if applied {
		fmt.Fprintf(w, "result: %s\n", lift.Outcome.Result)
	} else if len(lift.Lifted) > 0 {
		fmt.Fprintln(w, "dry run: nothing written; run with --apply to restore")
	}
	return nil
}

func nonNil(s []sidecar.Shield) []sidecar.Shield {
	if s == nil {
		return []sidecar.Shield{}
	}
	return s
}

func shieldQueues(ss []sidecar.Shield) string {
	q := make([]string, 0, len(ss))
	for _, s := range ss {
		q = append(q, s.Queue)
	}
	return strings.Join(q, ",")
}

// liftShieldsAtStop lifts, at a clean stop, the shields this daemon holds
// where lifting kills nothing (issue 37: a shield left in YARN keeps
// preemption off for its queue in every partition, for nobody's reason).
// Those it leaves are logged with why; `yarn-sidecar shields lift`
// takes them off later. The rate limit does not apply (the daemon is
// leaving); the applier's checks do. In HA a standby's write is refused
// by the leader guard, as every write of a standby is.
func liftShieldsAtStop(d *Daemon) {
	if d.Guard == nil || len(d.Guard.Shields()) == 0 {
		return
	}
	log := d.Log.Named("shields")
	if d.Config.Mode != act.ModeApply {
		// Shields a dry-run daemon knows of were re-learnt from an earlier
		// apply-mode run's audit log; a dry run writes nothing.
		log.Warn("preemption shields left in YARN: dry-run mode writes nothing; run `yarn-sidecar shields lift --apply`", "queues", shieldQueues(d.Guard.HeldShields(nil)))
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*d.Config.Timeout+30*time.Second)
	defer cancel()
	records, err := sidecar.RecoverShields(ctx, d.Config.AuditLog, d.Loop.Applier.API)
	if err != nil {
		log.Warn("shields left in YARN: the audit log or the RM could not be read; run `yarn-sidecar shields lift`", "error", err)
		return
	}
	writer := *d.Loop.Applier
	writer.Rate = nil
	lift, err := sidecar.LiftShields(ctx, d.Observer, &writer, d.Guard.HeldShields(records), time.Now(), liftOptions(d, false))
	if err != nil {
		log.Warn("shields not lifted at stop; run `yarn-sidecar shields lift`", "error", err)
		return
	}
	if len(lift.Lifted) > 0 {
		log.Info("preemption shields lifted at stop", "queues", shieldQueues(lift.Lifted), "result", lift.Outcome.Result)
	}
	for q, why := range lift.Left {
		log.Warn("preemption shield left in YARN at stop", "queue", q, "why", why)
	}
}
