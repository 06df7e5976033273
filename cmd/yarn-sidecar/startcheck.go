package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/yarn"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// inventory reads what the config is checked against, and only that: the
// queues (the scheduler's own listing, which a file-store RM serves too)
// when it names queues, the node labels when a node type names one, and
// the node listing (the biggest answer) only when a node type matches
// hosts or GPUs.
func inventory(ctx context.Context, cfg *sidecar.Config, client *yarn.Client) (sidecar.Inventory, error) {
	var inv sidecar.Inventory
	needLabels, needNodes := false, false
	for _, r := range cfg.NodeTypes {
		if !r.ExpectedLater {
			needLabels = needLabels || r.Label != ""
			needNodes = needNodes || r.HostPattern != "" || r.MinGPUs > 0
		}
	}
	if len(cfg.Queues) > 0 {
		qs, err := client.Queues(ctx)
		if err != nil {
			return inv, fmt.Errorf("read the queues to check the config against: %w", err)
		}
		for _, q := range qs {
			inv.Queues = append(inv.Queues, q.Path)
		}
	}
	if needLabels {
		labels, err := client.NodeLabels(ctx)
		if err != nil {
			return inv, fmt.Errorf("read the node labels to check the config against: %w", err)
		}
		for _, l := range labels {
			inv.Labels = append(inv.Labels, l.Name)
		}
	}
	if needNodes {
		nodes, err := client.Nodes(ctx)
		if err != nil {
			return inv, fmt.Errorf("read the nodes to check the config against: %w", err)
		}
		for _, n := range nodes {
			inv.Nodes = append(inv.Nodes, sidecar.InventoryNode{Host: n.Host, GPUs: n.Total.GPUs})
		}
	}
	return inv, nil
}

// checkAgainstCluster stops a command whose config names a queue, node
// label or node-type pattern the cluster does not have (and that is not
// marked expected_later), naming each and the nearest existing name.
func checkAgainstCluster(cfg *sidecar.Config, file string, client *yarn.Client, log hclog.Logger) error {
	if len(cfg.Queues) == 0 && len(cfg.NodeTypes) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*cfg.Timeout)
	defer cancel()
	inv, err := inventory(ctx, cfg, client)
	if err != nil {
		return err
	}
	err = cfg.CheckAgainstCluster(inv)
	var ce *sidecar.ConfigError
	if errors.As(err, &ce) {
		ce.File = file
	}
	for q, qc := range cfg.Queues {
		if qc.ExpectedLater && err == nil {
			log.Info("queue marked expected_later: not checked against the cluster", "queue", q)
		}
	}
	return err
}

// checkQueueFlag checks a --queue value against the cluster's queues.
func checkQueueFlag(client *yarn.Client, queue string, timeout time.Duration) error {
	if queue == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	qs, err := client.Queues(ctx)
	if err != nil {
		return fmt.Errorf("read the queues to check --queue: %w", err)
	}
	inv := sidecar.Inventory{}
	for _, q := range qs {
		inv.Queues = append(inv.Queues, q.Path)
	}
	return sidecar.CheckQueue("queue", queue, inv)
}

// seedBaseline gives the admin's baseline to a sidecar whose state
// directory has no first-seen file: from the audit log when it records
// the sidecar's writes (sidecar.AdminConf: each property's value before
// the sidecar first wrote it), so the sidecar's own values are never taken
// for the admin's; else the live configuration is the baseline, and the
// log says so.
func seedBaseline(cfg *sidecar.Config, fs *sidecar.FirstSeen, rm act.ConfReader, log hclog.Logger) error {
	if _, err := os.Stat(cfg.FirstSeenPath()); err == nil {
		return nil // the baseline as first seen
	} else if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("admin baseline: %w", err)
	}
	entries, err := act.ReadAuditFile(cfg.AuditLog, log)
	if err != nil {
		return fmt.Errorf("admin baseline: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), cfg.Timeout)
	defer cancel()
	live, err := rm.SchedulerConf(ctx)
	if err != nil {
		// Not fatal here: the cycle reads it again and says why.
		log.Warn("admin baseline: cannot read the live scheduler configuration", "error", err)
		return nil
	}
	admin, restored, changed := sidecar.AdminConf(live, entries)
	if len(restored) == 0 && len(changed) == 0 {
		log.Info("no admin baseline in the state directory yet: the live scheduler configuration is taken as the admin's",
			"state_dir", cfg.StateDir, "baseline_file", cfg.FirstSeenPath())
		return nil
	}
	tree, err := schedconf.ParseTree(admin)
	if err != nil {
		return fmt.Errorf("admin baseline from the audit log %s: %w", cfg.AuditLog, err)
	}
	if _, err := fs.Observe(tree); err != nil {
		return err
	}
	if err := fs.Save(); err != nil { // a no-op for a read-only command
		return err
	}
	log.Warn("no first-seen baseline in the state directory: the admin's capacities are taken from the audit log (each property's value before the sidecar first wrote it)",
		"state_dir", cfg.StateDir, "properties", len(restored))
	if len(changed) > 0 {
		log.Warn("the live configuration differs from what the sidecar last wrote: someone else set these since, and their live values are taken as the admin's",
			"properties", changed)
	}
	return nil
}

// warnStrayState says when the working directory holds a history, audit
// log or baseline under the default names while the state directory has
// none: earlier versions kept them in the working directory, and left
// there they would be ignored (the live configuration, perhaps the
// sidecar's own values, taken for the admin's).
func warnStrayState(cfg *sidecar.Config, log hclog.Logger) {
	cwd, err := os.Getwd()
	if err != nil || cwd == cfg.StateDir {
		return
	}
	for _, p := range []string{cfg.Store, cfg.AuditLog, cfg.FirstSeenPath()} {
		if _, err := os.Stat(p); err == nil {
			continue // the state directory has it
		}
		stray := filepath.Join(cwd, filepath.Base(p))
		if _, err := os.Stat(stray); err == nil {
			log.Warn("state found in the working directory, not in the state directory: move it there (or set state_dir) so the history and the admin's baseline are used",
				"found", stray, "state_dir", cfg.StateDir)
		}
	}
}
