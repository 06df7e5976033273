package act

import (
	"context"
	"fmt"
	"sync"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// DryRunAPI wraps a ConfAPI so the applier's logic runs unchanged while no
// write reaches YARN: reads and the RM's own validation go through, writes
// are recorded and reflected in what later reads return (so verify-after-
// apply passes exactly as it would). Dry-run swaps the applier's API, not
// its logic (Nomad's `job plan`).
type DryRunAPI struct {
	Inner ConfAPI

	mu         sync.Mutex
	overlay    schedconf.Conf // conf as it would be after recorded writes
	version    int64
	Mutations  []schedconf.Mutation
	Priorities map[string]int
}

// SchedulerConf returns the live conf with recorded mutations applied.
func (d *DryRunAPI) SchedulerConf(ctx context.Context) (schedconf.Conf, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.overlay != nil {
		return d.overlay.Clone(), nil
	}
	return d.Inner.SchedulerConf(ctx)
}

// ConfVersion reports the live version, plus one per recorded mutation.
func (d *DryRunAPI) ConfVersion(ctx context.Context) (int64, error) {
	v, err := d.Inner.ConfVersion(ctx)
	d.mu.Lock()
	defer d.mu.Unlock()
	return v + d.version, err
}

// ValidateMutation asks the RM (validation changes nothing).
func (d *DryRunAPI) ValidateMutation(ctx context.Context, m schedconf.Mutation) error {
	return d.Inner.ValidateMutation(ctx, m)
}

// ClusterLabels asks the wrapped API, if it can list labels (nil = unknown).
func (d *DryRunAPI) ClusterLabels(ctx context.Context) ([]string, error) {
	if ls, ok := d.Inner.(LabelSource); ok {
		return ls.ClusterLabels(ctx)
	}
	return nil, nil
}

// RMIdentity is the wrapped API's RM, if it knows it.
func (d *DryRunAPI) RMIdentity() string {
	if id, ok := d.Inner.(RMIdentifier); ok {
		return id.RMIdentity()
	}
	return ""
}

// UpdateConf records the mutation instead of sending it.
func (d *DryRunAPI) UpdateConf(ctx context.Context, m schedconf.Mutation) error {
	base, err := d.SchedulerConf(ctx)
	if err != nil {
		return err
	}
	next, err := base.Apply(m)
	if err != nil {
		return fmt.Errorf("dry-run apply: %w", err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.overlay = next
	d.version++
	d.Mutations = append(d.Mutations, m)
	return nil
}

// SetAppPriority records the priority instead of sending it.
func (d *DryRunAPI) SetAppPriority(_ context.Context, appID string, p int) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.Priorities == nil {
		d.Priorities = map[string]int{}
	}
	d.Priorities[appID] = p
	return p, nil
}
