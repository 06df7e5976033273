package yarn

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// ObserveOptions tune one observation.
type ObserveOptions struct {
	// Now stamps the snapshot (decision code never reads the clock). Zero:
	// the RM's clock (its Date header), so app and task times — stamped by
	// the cluster — compare with the snapshot even when the sidecar's host
	// clock is skewed.
	Now time.Time
	// Jobs also reads each running MapReduce app's job progress from its AM.
	Jobs bool
	// Concurrency bounds per-app calls (default 8).
	Concurrency int
	// PlacementMaxAge bounds how long an app's containers-per-node may be
	// reused while its running containers and allocation are unchanged
	// (default 5 min; negative: always re-read). Each re-read costs two
	// requests per app — 10,000 on a cluster running 5,000 apps.
	PlacementMaxAge time.Duration
}

// Observe reads one snapshot: nodes, partitions (computed from the nodes and
// their labels, never from cluster metrics, which cover the default
// partition only — YARN-11414), the queue tree, running apps and the
// containers each holds per node. RM-level failures fail the observe;
// per-app failures are listed in Snapshot.Errors.
func (c *Client) Observe(ctx context.Context, opts ObserveOptions) (cluster.Snapshot, error) {
	if opts.Concurrency <= 0 {
		opts.Concurrency = 8
	}
	snap := cluster.Snapshot{Time: opts.Now}
	var (
		wg                  sync.WaitGroup
		nodeErr, qErr, aErr error
		labels              []Label
		labelErr            error
	)
	wg.Add(4)
	go func() { defer wg.Done(); snap.Nodes, nodeErr = c.Nodes(ctx) }()
	go func() { defer wg.Done(); snap.Queues, qErr = c.Queues(ctx) }()
	go func() { defer wg.Done(); snap.Apps, aErr = c.Apps(ctx, "RUNNING") }()
	go func() { defer wg.Done(); labels, labelErr = c.NodeLabels(ctx) }()
	wg.Wait()
	if err := errors.Join(nodeErr, qErr, aErr); err != nil {
		return snap, fmt.Errorf("observe %s: %w", c.ActiveRM(), err)
	}
	snap.RM = c.ActiveRM()
	if snap.Time.IsZero() {
		if t, ok := c.ServerTime(); ok {
			snap.Time = t
		} else {
			snap.Time = time.Now().UTC()
		}
	}
	if labelErr != nil {
		snap.Errors = append(snap.Errors, cluster.LoadError{What: "node labels", Endpoint: "/ws/v1/cluster/get-node-labels", Err: labelErr.Error()})
	}
	snap.Partitions = partitions(snap.Nodes, labels)
	snap.ResolveAppQueues()
	if v, err := c.ConfVersion(ctx); err == nil {
		snap.ConfVersion = v
	} else if !errors.Is(err, ErrConfNotMutable) {
		snap.Errors = append(snap.Errors, cluster.LoadError{What: "scheduler-conf version", Endpoint: "/ws/v1/cluster/scheduler-conf/version", Err: err.Error()})
	}

	sem := make(chan struct{}, opts.Concurrency)
	var mu sync.Mutex
	for i := range snap.Apps {
		wg.Add(1)
		go func(a *cluster.App) {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			byNode, cached := c.placements.get(a, snap.Time, opts.PlacementMaxAge)
			var err error
			if !cached {
				if byNode, err = c.Containers(ctx, a.ID); err == nil {
					c.placements.put(a, snap.Time, byNode)
				}
			}
			mu.Lock()
			if err != nil {
				snap.Errors = append(snap.Errors, cluster.LoadError{What: "app " + a.ID + " containers", Endpoint: "/ws/v1/cluster/apps/" + a.ID + "/appattempts", Err: err.Error()})
			} else {
				a.ContainersByNode = byNode
			}
			mu.Unlock()
			if opts.Jobs && a.Type == "MAPREDUCE" {
				j, err := c.RunningJob(ctx, *a)
				mu.Lock()
				if err != nil {
					snap.Errors = append(snap.Errors, cluster.LoadError{What: "app " + a.ID + " job", Endpoint: "/proxy/" + a.ID + "/ws/v1/mapreduce", Err: err.Error()})
				} else {
					a.Job = j
				}
				mu.Unlock()
			}
		}(&snap.Apps[i])
	}
	wg.Wait()
	c.placements.keep(snap.Apps)
	sort.Slice(snap.Errors, func(i, j int) bool { return snap.Errors[i].What < snap.Errors[j].What })
	return snap, ctx.Err()
}

// partitions groups usable nodes by label, with exclusivity from the labels.
func partitions(nodes []cluster.Node, labels []Label) []cluster.Partition {
	byName := map[string]*cluster.Partition{"": {Name: "", Exclusive: false}}
	for _, l := range labels {
		byName[l.Name] = &cluster.Partition{Name: l.Name, Exclusive: l.Exclusive}
	}
	for _, n := range nodes {
		p := byName[n.Partition]
		if p == nil {
			p = &cluster.Partition{Name: n.Partition, Exclusive: true}
			byName[n.Partition] = p
		}
		if !n.Usable() {
			continue
		}
		p.Total = p.Total.Add(n.Total)
		p.Used = p.Used.Add(n.Used)
		p.NodeIDs = append(p.NodeIDs, n.ID)
	}
	out := make([]cluster.Partition, 0, len(byName))
	for _, p := range byName {
		out = append(out, *p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
