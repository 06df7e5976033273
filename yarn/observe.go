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
	// PlacementMaxAge bounds how long an app's containers-per-node (and,
	// with Jobs, its job: while its progress is unchanged too) may be
	// reused while its running containers and allocation are unchanged
	// (default 5 min; negative: always re-read). Each re-read costs two
	// requests per app — 10,000 on a cluster running 5,000 apps.
	PlacementMaxAge time.Duration
	// NodeType classifies nodes (calibrate.Classifier.TypeOf). Given, each
	// app's containers per node type come from its usage per partition
	// where the partition holds one node type, and only apps on partitions
	// that mix types are listed per node (issue 19); nil: every app is
	// listed.
	NodeType func(cluster.Node) string
	// ListingBudget bounds the per-node listing requests of one observe
	// when NodeType is set (counted as two per app, the most an app's
	// listing costs; one when its AM container names the attempt; default
	// 400; negative: no bound). Apps over it are estimated from their
	// partition's type mix.
	ListingBudget int
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
		confVersion         int64
		confErr             error
	)
	wg.Add(5)
	go func() { defer wg.Done(); snap.Nodes, nodeErr = c.Nodes(ctx) }()
	go func() { defer wg.Done(); snap.Queues, qErr = c.Queues(ctx) }()
	go func() { defer wg.Done(); snap.Apps, aErr = c.Apps(ctx, "RUNNING") }()
	go func() { defer wg.Done(); labels, labelErr = c.NodeLabels(ctx) }()
	go func() { defer wg.Done(); confVersion, confErr = c.ConfVersion(ctx) }()
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
	if confErr == nil {
		snap.ConfVersion = confVersion
	} else if !errors.Is(confErr, ErrConfNotMutable) {
		snap.Errors = append(snap.Errors, cluster.LoadError{What: "scheduler-conf version", Endpoint: "/ws/v1/cluster/scheduler-conf/version", Err: confErr.Error()})
	}

	// Which apps are listed per node: all of them without node types;
	// with them, only those whose partitions mix types, within budget.
	var typeOf map[string]string
	listApp := func(int) bool { return true }
	if opts.NodeType != nil {
		typeOf = make(map[string]string, len(snap.Nodes))
		for _, n := range snap.Nodes {
			typeOf[n.ID] = opts.NodeType(n)
		}
		if opts.ListingBudget == 0 {
			opts.ListingBudget = defaultListingBudget
		}
		pt := typesByPartition(snap.Nodes, typeOf)
		chosen := c.planListings(snap.Apps, pt, typeOf, snap.Time, opts.PlacementMaxAge, opts.ListingBudget)
		listApp = func(i int) bool { return chosen[i] }
	}

	sem := make(chan struct{}, opts.Concurrency)
	var mu sync.Mutex
	for i := range snap.Apps {
		list := listApp(i)
		if !list && !(opts.Jobs && snap.Apps[i].Type == "MAPREDUCE") {
			continue
		}
		wg.Add(1)
		go func(a *cluster.App) {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			if list {
				byNode, cached := c.placements.get(a, snap.Time, opts.PlacementMaxAge)
				var err error
				if !cached {
					if byNode, err = c.ContainersOf(ctx, a); err == nil {
						c.placements.put(a, snap.Time, byNode)
					}
				}
				mu.Lock()
				if err != nil {
					snap.Errors = append(snap.Errors, cluster.LoadError{What: "app " + a.ID + " containers", Endpoint: "/ws/v1/cluster/apps/" + a.ID + "/appattempts", Err: err.Error()})
				} else {
					a.ContainersByNode = byNode
					if typeOf != nil {
						a.ContainersByType = listedByType(byNode, typeOf)
						a.Placement = cluster.PlacementListed
					}
				}
				mu.Unlock()
			}
			if opts.Jobs && a.Type == "MAPREDUCE" {
				j, cached := c.jobs.get(a, snap.Time, opts.PlacementMaxAge)
				var err error
				if !cached {
					if j, err = c.RunningJob(ctx, *a); err == nil {
						c.jobs.put(a, snap.Time, j)
					}
				}
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
	c.jobs.keep(snap.Apps)
	if typeOf != nil {
		c.placements.keepListed(snap.Apps)
	} else {
		c.placements.keep(snap.Apps)
	}
	sort.Slice(snap.Errors, func(i, j int) bool { return snap.Errors[i].What < snap.Errors[j].What })
	return snap, ctx.Err()
}

// defaultListingBudget is ObserveOptions.ListingBudget's default: 200
// apps listed per cycle.
const defaultListingBudget = 400

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
