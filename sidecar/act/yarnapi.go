package act

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/deadline"
	"github.com/yarn-sidecar/yarn-sidecar/yarn"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// Observer reads one snapshot of the cluster and the live scheduler
// configuration. The yarn client satisfies it through an adapter.
type Observer interface {
	Observe(ctx context.Context, now time.Time) (cluster.Snapshot, error)
	SchedulerConf(ctx context.Context) (schedconf.Conf, error)
}

// YARN adapts a yarn.Client to the loop's Observer and the applier's
// ConfAPI.
type YARN struct {
	Client *yarn.Client
	// Jobs also reads running jobs' progress from their AMs.
	Jobs bool
	// RMClock stamps snapshots with the RM's clock instead of now.
	RMClock bool
	// NodeType (calibrate.Classifier.TypeOf) lets observe place apps per
	// node type from their usage per partition; ListingBudget bounds the
	// per-node listings of the rest (yarn.ObserveOptions).
	NodeType      func(cluster.Node) string
	ListingBudget int
	// JobBudget bounds the AM requests for running jobs per observe
	// (yarn.ObserveOptions.JobBudget; 0: its default); JobFirst marks the
	// apps whose jobs are read first (nil: apps tagged deadline=...).
	JobBudget int
	JobFirst  func(cluster.App) bool
	// NodeListingMaxAge bounds the node listing's reuse
	// (yarn.ObserveOptions; 0: its default, negative: never).
	NodeListingMaxAge time.Duration
	// AppUsageMaxAge bounds how long apps' use per partition is kept
	// between full apps reads (yarn.ObserveOptions; 0: its default,
	// negative: never).
	AppUsageMaxAge time.Duration
}

// HasGoal is a YARN.JobFirst: apps with a completion goal, from a
// deadline tag or their class's SLO (deadline.GoalOf), so their
// remaining work is read fresh every cycle.
func HasGoal(classOf func(cluster.App) string, slos map[string]time.Duration) func(cluster.App) bool {
	return func(a cluster.App) bool {
		_, ok, _ := deadline.GoalOf(a, classOf(a), slos)
		return ok
	}
}

var (
	_ Observer = YARN{}
	_ ConfAPI  = YARN{}
)

func mapNotMutable(err error) error {
	if errors.Is(err, yarn.ErrConfNotMutable) {
		return fmt.Errorf("%v: %w", err, ErrConfNotMutable)
	}
	return err
}

// Observe reads a snapshot stamped now.
func (y YARN) Observe(ctx context.Context, now time.Time) (cluster.Snapshot, error) {
	if y.RMClock {
		now = time.Time{}
	}
	return y.Client.Observe(ctx, yarn.ObserveOptions{Now: now, Jobs: y.Jobs, NodeType: y.NodeType, ListingBudget: y.ListingBudget,
		JobBudget: y.JobBudget, JobFirst: y.JobFirst, NodeListingMaxAge: y.NodeListingMaxAge, AppUsageMaxAge: y.AppUsageMaxAge})
}

// SchedulerConf reads the live scheduler configuration.
func (y YARN) SchedulerConf(ctx context.Context) (schedconf.Conf, error) {
	c, err := y.Client.SchedulerConf(ctx)
	return c, mapNotMutable(err)
}

// ConfVersion reads scheduler-conf/version.
func (y YARN) ConfVersion(ctx context.Context) (int64, error) {
	v, err := y.Client.ConfVersion(ctx)
	return v, mapNotMutable(err)
}

// ValidateMutation asks the RM to validate without applying.
func (y YARN) ValidateMutation(ctx context.Context, m schedconf.Mutation) error {
	return mapNotMutable(y.Client.ValidateMutation(ctx, m))
}

// UpdateConf applies one mutation.
func (y YARN) UpdateConf(ctx context.Context, m schedconf.Mutation) error {
	return mapNotMutable(y.Client.UpdateConf(ctx, m))
}

// ClusterLabels lists the cluster's node labels (for the label guard).
func (y YARN) ClusterLabels(ctx context.Context) ([]string, error) {
	ls, err := y.Client.NodeLabels(ctx)
	if err != nil {
		return nil, fmt.Errorf("read node labels: %w", err)
	}
	out := make([]string, 0, len(ls))
	for _, l := range ls {
		out = append(out, l.Name)
	}
	return out, nil
}

// RMIdentity is the RM that answers now (validation verdicts are per RM).
func (y YARN) RMIdentity() string { return y.Client.ActiveRM() }

// SetAppPriority sets an app's priority.
func (y YARN) SetAppPriority(ctx context.Context, appID string, p int) (int, error) {
	return y.Client.SetAppPriority(ctx, appID, p)
}
