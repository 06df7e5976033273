package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/yarn"
)

// daemonFlags are the flags of the commands that load the config.
type daemonFlags struct {
	config      string
	apply       bool
	rm          []string
	jhs         string
	user        string
	stateDir    string
	logLevel    string
	logJSON     bool
	listen      string
	forceDryRun bool
	// readOnly: the command writes nothing anywhere (no store, no audit
	// record, no baseline file, nothing to YARN), even when it fails.
	readOnly bool
}

// add registers the flags of a command that may write (run, apply,
// labels apply).
func (f *daemonFlags) add(cmd *cobra.Command) {
	f.addCommon(cmd, "simple-auth user (user.name); must be a YARN admin to apply")
	cmd.Flags().BoolVar(&f.apply, "apply", false, "write to YARN (otherwise dry-run unless the config says mode: apply)")
}

// addReadOnly registers the flags of a read-only command: no --apply, and
// the command is marked to write nothing.
func (f *daemonFlags) addReadOnly(cmd *cobra.Command) {
	f.readOnly = true
	f.addCommon(cmd, "simple-auth user (user.name) the REST reads are made as")
}

func (f *daemonFlags) addCommon(cmd *cobra.Command, userHelp string) {
	cmd.Flags().StringVar(&f.config, "config", "", "sidecar config file (YAML; see configs/sidecar.example.yaml)")
	cmd.Flags().StringSliceVar(&f.rm, "rm", nil, "ResourceManager web address(es), e.g. http://rm:8088 (default: config, then HADOOP_CONF_DIR)")
	cmd.Flags().StringVar(&f.jhs, "jhs", "", "JobHistory server web address (default: config, then HADOOP_CONF_DIR)")
	cmd.Flags().StringVar(&f.user, "user", "", userHelp)
	cmd.Flags().StringVar(&f.stateDir, "state-dir", "", "directory of the calibration history, audit log and the admin's baseline (default: config's state_dir, $STATE_DIRECTORY, /var/lib/yarn-sidecar as root, else $XDG_STATE_HOME/yarn-sidecar)")
	cmd.Flags().StringVar(&f.logLevel, "log-level", "info", "log level: trace, debug, info, warn, error")
	cmd.Flags().BoolVar(&f.logJSON, "log-json", false, "log as JSON lines")
}

// Daemon is everything a command needs, wired from the config.
type Daemon struct {
	Config   *sidecar.Config
	Log      hclog.Logger
	Loop     *sidecar.Loop
	Board    *sidecar.StatusBoard
	Periodic map[string]func()
	// ConfAPI is the applier's API (AnyStore): proposals read the live
	// capacity-scheduler.xml through it.
	ConfAPI act.ConfAPI
	// Proposals holds the latest proposal (mode: propose; /proposal).
	Proposals *act.ProposalBoard
	// Layouter and LabelAPI serve `labels plan|apply` whatever the config.
	Layouter *sidecar.LabelLayouter
	LabelAPI act.NodeLabelAPI
	// Client is the YARN client (checks such as --queue read through it).
	Client *yarn.Client
	// OnLeading runs when this sidecar wins the HA lease, before its first
	// cycle as leader: it re-learns the preemption shields from the audit
	// log (an audit log on shared storage holds the previous leader's).
	OnLeading func() error
	// Guard is the decider's preemption guard (the shields it holds are
	// lifted at a clean stop); Observer reads the cluster for that.
	Guard    *sidecar.PreemptionGuard
	Observer act.Observer
	closers  []func() error
}

// Close releases the store and the audit log.
func (d *Daemon) Close() {
	for i := len(d.closers) - 1; i >= 0; i-- {
		if err := d.closers[i](); err != nil {
			d.Log.Warn("close", "error", err)
		}
	}
}

// loadConfig reads the config and lets flags override it.
func (f *daemonFlags) loadConfig() (*sidecar.Config, error) {
	cfg, err := sidecar.LoadConfig(f.config)
	if err != nil {
		return nil, err
	}
	if len(f.rm) > 0 {
		cfg.RM = f.rm
	}
	if f.jhs != "" {
		cfg.JobHistory = f.jhs
	}
	if f.user != "" {
		cfg.User = f.user
	}
	if f.apply {
		cfg.Mode = act.ModeApply
	}
	if f.forceDryRun {
		cfg.Mode = act.ModeDryRun
	}
	if f.stateDir != "" {
		abs, err := filepath.Abs(f.stateDir)
		if err != nil {
			return nil, fmt.Errorf("--state-dir: %w", err)
		}
		cfg.StateDir = abs
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	home, _ := os.UserHomeDir()
	if err := cfg.ResolveState(os.Getenv, os.Geteuid(), home); err != nil {
		return nil, err
	}
	return cfg, nil
}

// build wires config → logger → clients → loop.
func (f *daemonFlags) build() (*Daemon, error) {
	cfg, err := f.loadConfig()
	if err != nil {
		return nil, err
	}
	log := newLogger(f.logLevel, f.logJSON)
	log.Info("state directory", "dir", cfg.StateDir, "read_only", f.readOnly)
	warnStrayState(cfg, log)
	d := &Daemon{Config: cfg, Log: log, Board: &sidecar.StatusBoard{}}
	deps, err := wireDeps(cfg, log, f.readOnly)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	d.closers = append(d.closers, deps.Close)
	if err := checkAgainstCluster(cfg, f.config, deps.Client, log); err != nil {
		deps.Close()
		return nil, err
	}
	if !f.readOnly {
		// Reconciliation appends what a killed predecessor left: a write.
		if err := reconcileAtStart(cfg.AuditLog, deps.ConfAPI, cfg.Timeout, log); err != nil {
			deps.Close()
			return nil, err
		}
	}
	if err := recoverShields(cfg.AuditLog, deps.ConfAPI, deps.Preemption, cfg.Timeout, log); err != nil {
		deps.Close()
		return nil, err
	}
	d.OnLeading = func() error {
		return recoverShields(cfg.AuditLog, deps.ConfAPI, deps.Preemption, cfg.Timeout, log)
	}
	if err := seedBaseline(cfg, deps.FirstSeen, deps.ConfAPI, log); err != nil {
		deps.Close()
		return nil, err
	}
	var audit *act.AuditLog // nil: a read-only command records nothing
	if !f.readOnly {
		if audit, err = act.OpenAuditLog(cfg.AuditLog); err != nil {
			deps.Close()
			return nil, err
		}
		d.closers = append(d.closers, audit.Close)
	}
	d.Loop = &sidecar.Loop{
		Observer: deps.Observer,
		Learner:  deps.loopLearner(),
		Decider:  deps.Decider,
		Applier: &act.Applier{API: deps.ConfAPI, Audit: audit, User: cfg.User, Validation: &act.RMValidation{},
			WriteTimeout: cfg.Safety.VerifyTimeout, Log: log.Named("apply")},
		Rules:   deps.Rules,
		Mode:    cfg.Mode,
		Log:     log,
		OnCycle: deps.OnCycle(d.Board, cfg.Mode),
		// Block maps (hdfs.enabled): read before the learner and decision.
		BlockMaps: deps.BlockMaps,
	}
	if f.readOnly {
		d.Loop.Mode = act.ModeDryRun // whatever the config says (status shows the configured mode)
	}
	if cfg.Safety.AllowNodeLabelChanges {
		d.Loop.LabelAPI = deps.Client
	}
	if cfg.RunsLabelLayout() {
		d.Loop.Labels = deps.Layouter
	}
	d.Layouter, d.LabelAPI, d.Client = deps.Layouter, deps.Client, deps.Client
	d.ConfAPI = deps.ConfAPI
	if cfg.Mode == act.ModePropose {
		d.Proposals = &act.ProposalBoard{}
		d.Loop.OnCycle = chainOnCycle(d.Loop.OnCycle, func(rep sidecar.CycleReport) {
			if rep.Plan != nil {
				p, err := d.proposal(context.Background(), rep.Plan)
				d.Proposals.Set(p, err)
			}
		})
	}
	d.Guard, d.Observer = deps.Preemption, deps.Observer
	d.Periodic = deps.Periodic(cfg)
	recordHeader(d.Board, deps.Client, cfg.AuditLog, log)
	d.Loop.OnCycle = chainOnCycle(d.Loop.OnCycle, func(sidecar.CycleReport) { sidecar.MarkPinned(d.Board, cfg.Queues) })
	return d, nil
}
