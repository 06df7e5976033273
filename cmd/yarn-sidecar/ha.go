package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/robfig/cron/v3"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/leader"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// errNotLeader refuses a write from a sidecar that lost the lease between
// choosing its mode and sending.
var errNotLeader = errors.New("not the leader (the ZooKeeper lease was lost): write refused, nothing sent")

// leaderGuard lets writes through only while the elector holds the lease:
// the last check before a PUT leaves the sidecar.
type leaderGuard struct {
	act.ConfAPI
	el *leader.Elector
}

func (g leaderGuard) UpdateConf(ctx context.Context, m schedconf.Mutation) error {
	if !g.el.IsLeader() {
		return errNotLeader
	}
	return g.ConfAPI.UpdateConf(ctx, m)
}

// CanWrite forwards the wrapped API's write gate (a file store that cannot act).
func (g leaderGuard) CanWrite(ctx context.Context) error {
	if w, ok := g.ConfAPI.(act.WriteGate); ok {
		return w.CanWrite(ctx)
	}
	return nil
}

func (g leaderGuard) SetAppPriority(ctx context.Context, appID string, p int) (int, error) {
	if !g.el.IsLeader() {
		return 0, errNotLeader
	}
	return g.ConfAPI.SetAppPriority(ctx, appID, p)
}

// runHA runs the loop under leader election: the leader's cycles run in
// the configured mode, a standby's as dry runs (it observes, decides and
// serves metrics). Winning the lease starts a cycle at once.
func runHA(ctx context.Context, d *Daemon, reg prometheus.Registerer) error {
	cfg, log := d.Config, d.Log
	cfg.HA.Defaults(cfg.Interval)
	host, _ := os.Hostname()
	won := make(chan struct{}, 1)
	el := &leader.Elector{Servers: cfg.HA.ZooKeeper, Path: cfg.HA.Path, ID: fmt.Sprintf("%s:%d", host, os.Getpid()),
		SessionTimeout: cfg.HA.SessionTimeout, Log: log.Named("leader"),
		OnChange: func(leading bool) {
			if leading {
				select {
				case won <- struct{}{}:
				default:
				}
			}
		}}
	if err := reg.Register(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "yarn_sidecar_leader",
		Help: "1 while this sidecar holds the ZooKeeper lease and may write to YARN, 0 on a standby."},
		func() float64 {
			if el.IsLeader() {
				return 1
			}
			return 0
		})); err != nil {
		return fmt.Errorf("register leader gauge: %w", err)
	}
	d.Loop.Applier.API = leaderGuard{ConfAPI: d.Loop.Applier.API, el: el}
	elDone := make(chan error, 1)
	go func() { elDone <- el.Run(ctx) }()

	c := cron.New()
	for spec, f := range d.Periodic {
		if _, err := c.AddFunc(spec, f); err != nil {
			return fmt.Errorf("schedule %q: %w", spec, err)
		}
	}
	c.Start()
	defer func() { <-c.Stop().Done() }()
	t := time.NewTicker(cfg.Interval)
	defer t.Stop()
	wasLeader := false
	for {
		d.Loop.Mode = act.ModeDryRun
		leading := el.IsLeader()
		if leading && !wasLeader && d.OnLeading != nil {
			// A new leader first re-learns what it owns in YARN; if it
			// cannot, it runs this cycle as a dry run and tries again.
			if err := d.OnLeading(); err != nil {
				log.Warn("taking over as leader: re-reading the audit log failed; this cycle is a dry run", "error", err)
				leading = false
			}
		}
		wasLeader = leading
		if leading {
			d.Loop.Mode = cfg.Mode
		}
		if _, err := d.Loop.Once(ctx); err != nil {
			log.Warn("cycle failed", "error", err, "leader", el.IsLeader())
		}
		select {
		case <-ctx.Done():
			<-elDone
			return nil
		case err := <-elDone:
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("leader election stopped: %v", err)
		case <-t.C:
		case <-won:
		}
	}
}
