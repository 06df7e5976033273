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
	// (default 5 min; negative: always re-read). Each re-read costs a
	// request per app (two when its AM container does not name the
	// attempt) — 5,000 or more on a cluster running 5,000 apps.
	PlacementMaxAge time.Duration
	// NodeType classifies nodes (calibrate.Classifier.TypeOf). Given, each
	// app's containers per node type come from its usage per partition
	// where the partition holds one node type, and only apps on partitions
	// that mix types are listed per node (issue 19); nil: every app is
	// listed.
	NodeType func(cluster.Node) string
	// ListingBudget bounds the per-node listing requests of one observe
	// when NodeType is set, in requests: an app's listing costs one when
	// its AM container names the attempt (as it does on 3.x), else two
	// (default 200; negative: no bound). Apps over it are estimated from
	// their partition's type mix.
	ListingBudget int
	// JobBudget bounds the AM requests of one observe with Jobs (two per
	// job, three the first time: its conf, read once per job; default
	// 400; negative: no bound). Jobs are read in priority
	// order — apps with a completion goal (JobFirst), then apps never
	// read, then the stalest reads; the others keep their last read while
	// younger than JobMaxAge or go without one, as App.JobView says.
	JobBudget int
	// JobMaxAge bounds how long a job read is kept for an app not read
	// again: for free while the RM shows the app unchanged (same progress,
	// containers and allocation), else when the budget went to other apps
	// (default 15 min; negative: never kept). A job's totals and sizes do
	// not change while it runs; its counts lag by up to this much.
	JobMaxAge time.Duration
	// JobFirst marks apps whose job is read before all others (nil: apps
	// tagged deadline=...).
	JobFirst func(cluster.App) bool
	// NodeListingMaxAge bounds how long the last node listing is reused
	// while the cluster metrics' node counts and totals are unchanged and
	// no node labels were written (default 5 min; negative: always
	// re-read). The listing is the biggest answer of a snapshot (issue
	// 19); a reused one's per-node use is as of Snapshot.NodesReadAt.
	// The node labels (get-node-labels) are read and reused with it: a
	// label's exclusivity changed by someone else than the sidecar is
	// seen at most this much later.
	NodeListingMaxAge time.Duration
	// AppUsageMaxAge bounds how long apps' use per partition (their
	// resourceInfo, most of the apps answer) is kept from a full read
	// while later snapshots read apps without it (default 5 min;
	// negative: always read). Meanwhile an unchanged app keeps its use
	// and a changed or new one is split by its queue's use per partition
	// and marked UsageEstimated (appusage.go, issue 19).
	AppUsageMaxAge time.Duration
}

// Observe reads one snapshot: nodes, partitions (computed from the nodes and
// their labels, never from cluster metrics, which cover the default
// partition only — YARN-11414), the queue tree, running apps and the
// containers each holds per node. The node listing is reused while the
// cluster metrics say nothing changed (NodeListingMaxAge); partitions' use
// then comes from the leaf queues. RM-level failures fail the observe;
// per-app failures are listed in Snapshot.Errors.
func (c *Client) Observe(ctx context.Context, opts ObserveOptions) (cluster.Snapshot, error) {
	if opts.Concurrency <= 0 {
		opts.Concurrency = 8
	}
	snap := cluster.Snapshot{Time: opts.Now}
	var (
		wg                  sync.WaitGroup
		nodeErr, qErr, aErr error
		confVersion         int64
		confErr             error
		nodes               nodeRead
		queueUsage          bool
	)
	planAt := opts.Now
	if planAt.IsZero() {
		if t, ok := c.ServerTime(); ok {
			planAt = t
		} else {
			planAt = time.Now().UTC()
		}
	}
	types := c.nodeList.typesSeen(opts.NodeType)
	lean, appsWhy := c.usage.plan(c.ActiveRM(), planAt, opts.AppUsageMaxAge, types)
	// The node labels come with the node listing (observeNodes): read
	// with it, reused with it.
	wg.Add(4)
	go func() { defer wg.Done(); nodes, nodeErr = c.observeNodes(ctx, opts.Now, opts.NodeListingMaxAge) }()
	go func() { defer wg.Done(); snap.Queues, queueUsage, qErr = c.queues(ctx) }()
	go func() { defer wg.Done(); snap.Apps, aErr = c.apps(ctx, lean, "RUNNING", "ACCEPTED") }()
	go func() { defer wg.Done(); confVersion, confErr = c.ConfVersion(ctx) }()
	wg.Wait()
	if err := errors.Join(nodeErr, qErr, aErr); err != nil {
		return snap, fmt.Errorf("observe %s: %w", c.ActiveRM(), err)
	}
	if nodes.reused && !queueUsage {
		// No per-partition use in the scheduler answer (before 3.x): only
		// a fresh listing says what the partitions use.
		c.InvalidateNodes()
		if nodes, nodeErr = c.observeNodes(ctx, opts.Now, opts.NodeListingMaxAge); nodeErr != nil {
			return snap, fmt.Errorf("observe %s: %w", c.ActiveRM(), nodeErr)
		}
	}
	snap.Nodes = nodes.nodes
	snap.RM = c.ActiveRM()
	if snap.Time.IsZero() {
		if t, ok := c.ServerTime(); ok {
			snap.Time = t
		} else {
			snap.Time = time.Now().UTC()
		}
	}
	snap.NodesReadAt = snap.Time
	if nodes.reused {
		snap.NodesReadAt, snap.NodesReused = nodes.readAt, true
	}
	c.cfg.Logger.Debug("node listing", "decision", nodes.why, "nodes", len(snap.Nodes), "read_at", snap.NodesReadAt, "labels_reused", nodes.labelsReused)
	if nodes.labelErr != nil {
		snap.Errors = append(snap.Errors, cluster.LoadError{What: "node labels", Endpoint: "/ws/v1/cluster/get-node-labels", Err: nodes.labelErr.Error()})
	}
	snap.Partitions = partitions(snap.Nodes, nodes.labels)
	if nodes.reused {
		snap.Partitions = usedFromQueues(snap.Partitions, snap.Queues)
	}
	snap.ResolveAppQueues()
	// Apps waiting for their AM to register are listed apart: nothing of
	// theirs runs yet, but a goal job among them can be planned for
	// before its tasks queue (issue 18).
	snap.Apps, snap.Accepted = splitAccepted(snap.Apps)
	c.usage.sawQueues(queueUsage)
	if lean && !carryUsage(snap.Apps) {
		entries := c.usage.entries()
		kept, estimated := fillUsage(snap.Apps, entries, snap.Queues)
		ams := estimateAMUse(snap.Apps, snap.Accepted, entries, snap.Queues, nodePartitions(snap.Nodes))
		c.cfg.Logger.Debug("apps read", "decision", appsWhy, "apps", len(snap.Apps), "use_kept", kept, "use_estimated", estimated, "am_estimated", ams)
	} else {
		c.usage.putFull(snap.RM, snap.Time, snap.Apps)
		c.cfg.Logger.Debug("apps read", "decision", appsWhy, "apps", len(snap.Apps))
	}
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

	// Which running jobs are read from their AMs: within the job budget.
	readJob := func(int) bool { return false }
	if opts.Jobs {
		if opts.JobBudget == 0 {
			opts.JobBudget = DefaultJobBudget
		}
		chosen := make(map[int]bool)
		for _, i := range c.jobs.planJobReads(snap.Apps, snap.Time, opts.JobMaxAge, opts.JobBudget, opts.JobFirst, c.confCached) {
			chosen[i] = true
		}
		readJob = func(i int) bool { return chosen[i] }
	}

	sem := make(chan struct{}, opts.Concurrency)
	var mu sync.Mutex
	for i := range snap.Apps {
		list, job := listApp(i), readJob(i)
		if !list && !job {
			continue
		}
		wg.Add(1)
		go func(a *cluster.App, list, job bool) {
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
			if job {
				j, err := c.RunningJob(ctx, *a)
				var confErr error
				if err == nil {
					// The map size is in the job's conf, read once per
					// job; a job without it is still a job.
					j.ContainerSize, confErr = c.JobMapSize(ctx, *a, j.ID)
					if confErr == nil {
						j.ReduceContainerSize, _ = c.JobReduceSize(ctx, *a, j.ID) // the same cached conf
					}
					c.jobs.put(a, snap.Time, j)
				}
				mu.Lock()
				if confErr != nil {
					snap.Errors = append(snap.Errors, cluster.LoadError{What: "app " + a.ID + " job conf", Endpoint: "/proxy/" + a.ID + "/ws/v1/mapreduce/jobs/" + j.ID + "/conf", Err: confErr.Error()})
				}
				if err != nil {
					snap.Errors = append(snap.Errors, cluster.LoadError{What: "app " + a.ID + " job", Endpoint: "/proxy/" + a.ID + "/ws/v1/mapreduce", Err: err.Error()})
					c.jobs.keepOrEstimate(a, snap.Time, opts.JobMaxAge)
				} else {
					a.Job, a.JobView, a.JobReadAt = j, cluster.JobFresh, snap.Time
				}
				mu.Unlock()
			}
		}(&snap.Apps[i], list, job)
	}
	wg.Wait()
	c.jobs.setReduceAllowance(-1) // outside an observe, RunningJob is unbounded
	c.jobs.keep(snap.Apps)
	c.confs.keep(snap.Apps)
	c.usage.keep(snap.Apps)
	if typeOf != nil {
		c.placements.keepListed(snap.Apps)
	} else {
		c.placements.keep(snap.Apps)
	}
	sort.Slice(snap.Errors, func(i, j int) bool { return snap.Errors[i].What < snap.Errors[j].What })
	return snap, ctx.Err()
}

// defaultListingBudget is ObserveOptions.ListingBudget's default: 200
// requests, 200 apps listed per cycle where AM containers name their
// attempts. It was 400 counted as two per app, which lists the same 200
// apps: the count is now what is spent.
const defaultListingBudget = 200

// nodePartitions maps node ids to their partitions.
func nodePartitions(nodes []cluster.Node) map[string]string {
	out := make(map[string]string, len(nodes))
	for _, n := range nodes {
		out[n.ID] = n.Partition
	}
	return out
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

// splitAccepted moves the ACCEPTED apps out of apps (in order).
func splitAccepted(apps []cluster.App) (running, accepted []cluster.App) {
	running = apps[:0:0]
	for _, a := range apps {
		if a.State == cluster.AppAccepted {
			accepted = append(accepted, a)
			continue
		}
		running = append(running, a)
	}
	return running, accepted
}
