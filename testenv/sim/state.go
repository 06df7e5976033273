package sim

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/rmweb"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

var _ rmweb.State = (*Cluster)(nil)

// JobResult is one finished (or running) scenario job, for benchmarks.
type JobResult struct {
	AppID, JobID, Name, Class, Queue string
	Submit, Start, Finish            time.Time
	// FirstMap is when the job's first map attempt started (zero before
	// any did): how soon after submission a decision must come to choose
	// where its first wave runs.
	FirstMap      time.Time
	Deadline      *time.Time
	Maps, Reduces int
	State         string
	// TaskSeconds are the container-seconds of every task attempt,
	// killed ones included; WastedSeconds those of the killed attempts
	// (preempted, speculative losers, lost nodes); MinTaskSeconds the
	// least the tasks needed (Scenario.MinWork). AM containers are not
	// counted.
	TaskSeconds, WastedSeconds, MinTaskSeconds float64
	// MapUse splits the maps' container-seconds and least work by node
	// type (TypeUse); MapProc and MapRead are the maps' processing at
	// speed 1 and their node-local reads, so a bound at any speed s is
	// MapProc/s + MapRead.
	MapUse           map[string]TypeUse
	MapProc, MapRead float64
}

// Duration is the job's completion time from submission.
func (r JobResult) Duration() time.Duration { return r.Finish.Sub(r.Submit) }

// Results lists every submitted job.
func (c *Cluster) Results() []JobResult {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]JobResult, 0, len(c.apps))
	for _, a := range c.apps {
		r := JobResult{AppID: a.id, JobID: a.jobID, Name: a.name, Class: a.class, Queue: a.queue, Submit: a.submit,
			Start: a.start, Finish: a.finish, Maps: len(a.maps), Reduces: len(a.reduces), State: a.state}
		r.TaskSeconds, r.WastedSeconds = taskUse(a, c.now)
		bytes := make([]int64, len(a.maps))
		for i, t := range a.maps {
			bytes[i] = t.bytes
			if len(t.attempts) > 0 && (r.FirstMap.IsZero() || t.attempts[0].start.Before(r.FirstMap)) {
				r.FirstMap = t.attempts[0].start
			}
		}
		r.MinTaskSeconds = c.sc.MinWork(a.class, bytes, len(a.reduces), a.submit.Sub(c.start))
		r.MapUse, r.MapProc, r.MapRead = c.mapUse(a)
		if a.spark != nil {
			c.sparkResult(a, &r)
		}
		for _, t := range a.tags {
			if v, ok := strings.CutPrefix(t, "deadline="); ok {
				if d, err := parseDeadline(v, a.submit); err == nil {
					r.Deadline = &d
				}
			}
		}
		out = append(out, r)
	}
	return out
}

func parseDeadline(v string, submit time.Time) (time.Time, error) {
	if rel, ok := strings.CutPrefix(v, "+"); ok {
		d, err := time.ParseDuration(rel)
		return submit.Add(d), err
	}
	return time.Parse(time.RFC3339, v)
}

// ContainersByType counts each running app's containers per node type.
func (c *Cluster) ContainersByType() map[string]map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]map[string]int{}
	for _, a := range c.apps {
		if !a.finish.IsZero() {
			continue
		}
		m := map[string]int{}
		if a.spark != nil {
			for _, e := range a.spark.executors {
				if e.live() {
					m[e.node.typ]++
				}
			}
		}
		for _, ts := range [][]*task{a.maps, a.reduces} {
			for _, t := range ts {
				for _, at := range t.attempts {
					if at.state == "RUNNING" {
						m[at.node.typ]++
					}
				}
			}
		}
		out[a.id] = m
	}
	return out
}

// Nodes implements rmweb.State.
func (c *Cluster) Nodes() []rmweb.Node {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]rmweb.Node, 0, len(c.nodes))
	for _, n := range c.nodes {
		var labels []string
		if n.label != "" {
			labels = []string{n.label}
		}
		out = append(out, rmweb.Node{ID: n.id, Host: n.host, Rack: n.rack, State: n.state, HTTPAddress: n.host + ":8042",
			Labels: labels, Total: n.total, Used: n.used, Containers: n.containers, LastHealth: c.now, Health: ""})
	}
	return out
}

// Labels implements rmweb.State.
func (c *Cluster) Labels() []rmweb.Label {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []rmweb.Label
	for name, ex := range c.labels {
		out = append(out, rmweb.Label{Name: name, Exclusive: ex})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// SchedulerConf implements rmweb.State.
func (c *Cluster) SchedulerConf() (schedconf.Conf, int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.conf.Clone(), c.version
}

// PartitionTotals implements rmweb.State.
func (c *Cluster) PartitionTotals() map[string]rmweb.Resource {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]rmweb.Resource{"": {}}
	for l := range c.labels {
		out[l] = rmweb.Resource{}
	}
	for _, n := range c.nodes {
		if n.state == "RUNNING" {
			out[n.label] = add(out[n.label], n.total)
		}
	}
	return out
}

// QueueRuntime implements rmweb.State.
func (c *Cluster) QueueRuntime(path string) rmweb.QueueRuntime {
	c.mu.Lock()
	defer c.mu.Unlock()
	rt := rmweb.QueueRuntime{ByPartition: map[string]rmweb.QueueUsage{}}
	prefix := path + "."
	for _, a := range c.apps {
		if !a.finish.IsZero() || (a.queue != path && !strings.HasPrefix(a.queue, prefix)) {
			continue
		}
		rt.NumApplications++
		if a.amPending {
			rt.NumPendingApplications++
		} else {
			rt.NumActiveApplications++
		}
		if a.hasDemand() {
			p := c.labelExpr(a)
			u := rt.ByPartition[p]
			ask, _ := a.pendingAsk()
			u.Pending = add(u.Pending, ask)
			rt.ByPartition[p] = u
		}
	}
	for p, used := range c.usage[path] {
		u := rt.ByPartition[p]
		u.Used = used
		if used.MemoryMB > 0 {
			u.NumContainers = int(used.MemoryMB / 1024) // refined below for leaves
		}
		rt.ByPartition[p] = u
	}
	// Exact container counts per partition for the queue's apps.
	counts := map[string]int{}
	for _, a := range c.apps {
		if !a.finish.IsZero() || (a.queue != path && !strings.HasPrefix(a.queue, prefix)) {
			continue
		}
		if a.amNode != nil {
			counts[a.amNode.label]++
		}
		if a.spark != nil {
			for _, e := range a.spark.executors {
				if e.live() {
					counts[e.node.label]++
				}
			}
		}
		for _, ts := range [][]*task{a.maps, a.reduces} {
			for _, t := range ts {
				for _, at := range t.attempts {
					if at.state == "RUNNING" {
						counts[at.node.label]++
					}
				}
			}
		}
	}
	for p, u := range rt.ByPartition {
		u.NumContainers = counts[p]
		rt.ByPartition[p] = u
	}
	if u, ok := c.amUsage[path]; ok {
		x := rt.ByPartition[""]
		x.AMUsed = u
		rt.ByPartition[""] = x
	}
	return rt
}

func (c *Cluster) appView(a *app) rmweb.App {
	v := rmweb.App{ID: a.id, User: a.user, Name: a.name, Queue: a.queue, State: a.state, FinalStatus: a.finalStatus,
		ApplicationType: a.appType(), Tags: a.tags, Priority: a.priority, StartedTime: a.submit, LaunchTime: a.start,
		FinishedTime: a.finish, Allocated: a.allocated, RunningContainers: a.containers, NodeLabelExpression: a.labelExpr,
		AMLabelExpression: c.labelExpr(a), Preempted: a.preemptedView(),
		AttemptID: fmt.Sprintf("appattempt_%d_%04d_000001", c.clusterTS, a.seq)}
	total := len(a.maps) + len(a.reduces)
	if total > 0 {
		v.Progress = 100 * float64(a.mapsDone+a.reducesDone) / float64(total)
	}
	if a.spark != nil {
		v.Progress = a.spark.progress()
	}
	if a.finish.IsZero() {
		v.ByPartition = c.appPartitions(a)
		v.AMResource = amResource
	}
	if a.amNode != nil {
		v.AMNodeID = a.amNode.id
		v.AMHostHTTPAddress = a.amNode.host + ":8042"
		v.AMContainerID = fmt.Sprintf("container_%d_%04d_01_000001", c.clusterTS, a.seq)
	}
	return v
}

// appPartitions is a running app's use per partition: containers held,
// asks pending (in the partition its asks go to) and the AM container.
func (c *Cluster) appPartitions(a *app) map[string]rmweb.QueueUsage {
	out := map[string]rmweb.QueueUsage{}
	for p, used := range c.appUsageByPartition(a) {
		u := out[p]
		u.Used = used
		out[p] = u
	}
	if a.amNode != nil {
		u := out[a.amNode.label]
		u.AMUsed = amResource
		out[a.amNode.label] = u
	}
	if a.hasDemand() {
		p := c.labelExpr(a)
		u := out[p]
		ask, n := a.pendingAsk()
		u.Pending = add(u.Pending, ask)
		u.PendingContainers += n
		out[p] = u
	}
	return out
}

// pendingAsk is what an app with demand still asks for: its AM container
// until the AM runs, then its pending maps and reduces, or a Spark app's
// executors its driver still wants (its target less those it holds; they
// were left out of the queue's and the app's pending until issue 36's
// spark36c, so the sidecar saw no demand from a Spark app waiting for
// executors, GPU ones included).
func (a *app) pendingAsk() (rmweb.Resource, int) {
	if a.amPending {
		return amResource, 1
	}
	if a.spark != nil {
		n := int64(a.spark.wanted())
		e := a.spark.execSize
		return rmweb.Resource{MemoryMB: e.MemoryMB * n, VCores: e.VCores * n, GPUs: e.GPUs * n}, int(n)
	}
	n := int64(len(a.pendingMaps) + a.pendingReduces)
	return rmweb.Resource{MemoryMB: a.mapSize.MemoryMB * n, VCores: a.mapSize.VCores * n, GPUs: a.mapSize.GPUs * n}, int(n)
}

// AppCounts implements rmweb.State: one pass over the apps, no copies.
func (c *Cluster) AppCounts() rmweb.AppCounts {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out rmweb.AppCounts
	for _, a := range c.apps {
		switch a.state {
		case "RUNNING":
			out.Running++
		case "ACCEPTED", "SUBMITTED", "NEW":
			out.Pending++
		case "FAILED":
			out.Failed++
		case "KILLED":
			out.Killed++
		default:
			out.Completed++
		}
		if a.finish.IsZero() && a.hasDemand() && c.labelExpr(a) == "" {
			ask, n := a.pendingAsk()
			out.PendingDefault = add(out.PendingDefault, ask)
			out.PendingDefaultContainers += n
		}
	}
	return out
}

// Apps implements rmweb.State.
func (c *Cluster) Apps() []rmweb.App {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]rmweb.App, 0, len(c.apps))
	for _, a := range c.apps {
		out = append(out, c.appView(a))
	}
	return out
}

// App implements rmweb.State.
func (c *Cluster) App(id string) (rmweb.App, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, ok := c.appByID[id]
	if !ok {
		return rmweb.App{}, false
	}
	return c.appView(a), true
}

// Job implements rmweb.State.
func (c *Cluster) Job(appID string) (rmweb.Job, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, ok := c.appByID[appID]
	if !ok || a.spark != nil { // a Spark app runs no MapReduce job
		return rmweb.Job{}, false
	}
	return c.historyOrLive(a), true
}

// historyOrLive is a finished job's cached history view, or a live view.
func (c *Cluster) historyOrLive(a *app) rmweb.Job {
	if a.finish.IsZero() {
		return c.jobView(a)
	}
	if a.history == nil {
		v := c.jobView(a)
		a.history = &v
	}
	return *a.history
}

// FinishedJobs implements rmweb.State.
func (c *Cluster) FinishedJobs() []rmweb.Job {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []rmweb.Job
	for _, a := range c.apps {
		if !a.finish.IsZero() && a.spark == nil {
			out = append(out, c.historyOrLive(a))
		}
	}
	return out
}

func (c *Cluster) jobView(a *app) rmweb.Job {
	state := "RUNNING"
	switch {
	case a.state == "FINISHED":
		state = "SUCCEEDED"
	case a.state == "FAILED" || a.state == "KILLED":
		state = a.state
	case !a.running:
		state = "NEW"
	}
	j := rmweb.Job{ID: a.jobID, AppID: a.id, Name: a.name, User: a.user, Queue: a.queue, State: state,
		SubmitTime: a.submit, StartTime: a.start, FinishTime: a.finish, Conf: a.conf, Counters: map[string]int64{},
		HistoryUnloadable: a.historyDamaged}
	var read int64
	for _, ts := range [][]*task{a.maps, a.reduces} {
		for _, t := range ts {
			tv := rmweb.Task{ID: fmt.Sprintf("task_%d_%04d_%s_%06d", c.clusterTS, a.seq, strings.ToLower(t.typ[:1]), t.idx),
				Type: t.typ, State: t.state, StartTime: t.start, FinishTime: t.finish}
			if t.state == "SUCCEEDED" {
				tv.Progress = 100
			}
			for _, at := range t.attempts {
				av := rmweb.Attempt{ID: fmt.Sprintf("attempt_%d_%04d_%s_%06d_%d", c.clusterTS, a.seq, strings.ToLower(t.typ[:1]), t.idx, at.n),
					Type: t.typ, State: at.state, NodeHTTPAddress: at.node.host + ":8042", Rack: at.node.rack,
					ContainerID: fmt.Sprintf("container_%d_%04d_01_%06d", c.clusterTS, a.seq, 2+t.idx*4+at.n),
					NodeID:      at.node.id, Allocated: at.size,
					StartTime: at.start, FinishTime: at.finish, ShuffleFinish: at.shuffleFinish, MergeFinish: at.mergeFinish,
					Counters: map[string]int64{}, Diagnostics: at.diag}
				if at.state == "SUCCEEDED" {
					av.Progress = 100
					tv.SuccessfulAttempt = av.ID
					av.Counters["HDFS_BYTES_READ"] = at.bytes
					// A map's CPU time is its processing part: the stand-in
					// for a JVM that waits, off-CPU, while it reads.
					cpu := at.finish.Sub(at.start)
					if t.typ == "MAP" {
						cpu = at.cpu
					}
					av.Counters["CPU_MILLISECONDS"] = cpu.Milliseconds()
					read += at.bytes
				} else if at.state == "RUNNING" && !c.now.Before(at.start) {
					if d := at.ev; d != nil && d.at.After(at.start) {
						av.Progress = 100 * float64(c.now.Sub(at.start)) / float64(d.at.Sub(at.start))
					}
					tv.Progress = math.Max(tv.Progress, av.Progress)
				}
				tv.Attempts = append(tv.Attempts, av)
				if t.typ == "MAP" {
					j.Counters["TOTAL_LAUNCHED_MAPS"]++
					switch at.locality {
					case "NODE_LOCAL":
						j.Counters["DATA_LOCAL_MAPS"]++
					case "RACK_LOCAL":
						j.Counters["RACK_LOCAL_MAPS"]++
					default:
						j.Counters["OTHER_LOCAL_MAPS"]++
					}
				} else {
					j.Counters["TOTAL_LAUNCHED_REDUCES"]++
				}
			}
			j.Tasks = append(j.Tasks, tv)
		}
	}
	j.Counters["HDFS_BYTES_READ"] = read
	return j
}

// MutateConf implements rmweb.State: apply, validate as the Capacity
// Scheduler would, and only then swap the queues in (one transaction).
func (c *Cluster) MutateConf(m schedconf.Mutation, validateOnly bool) (schedconf.Conf, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	next, err := c.conf.Apply(m)
	if err != nil {
		return nil, err
	}
	// An empty global-updates value leaves the key present as "" (only
	// queue params are unset) — recorded on 3.3.6.
	for k, v := range m.GlobalUpdates {
		if v == "" {
			next[k] = ""
		}
	}
	if err := schedconf.ValidateWithLabels(next, c.acceptedLabels(next)); err != nil {
		return nil, err
	}
	if validateOnly {
		return next, nil
	}
	if err := c.setConf(next); err != nil {
		return nil, err
	}
	c.version++
	return next.Clone(), nil
}

// ReplaceConf implements rmweb.ConfReplacer: a file-store refreshQueues
// validates the whole file as MutateConf validates a mutation's result, and
// keeps the old queues when it is invalid.
func (c *Cluster) ReplaceConf(conf schedconf.Conf) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := schedconf.ValidateWithLabels(conf, c.acceptedLabels(conf)); err != nil {
		return err
	}
	if err := c.setConf(conf.Clone()); err != nil {
		return err
	}
	c.version++
	return nil
}

// acceptedLabels are the cluster's labels plus those a queue's
// accessible-node-labels names: the RM accepts a label that does not exist
// there (recorded on 3.3.6: gpu,fpga → 200), capacities for it included.
func (c *Cluster) acceptedLabels(conf schedconf.Conf) []string {
	labels := make([]string, 0, len(c.labels))
	for l := range c.labels {
		labels = append(labels, l)
	}
	for k, v := range conf {
		if strings.HasSuffix(k, ".accessible-node-labels") {
			for _, l := range strings.Split(v, ",") {
				if l = strings.TrimSpace(l); l != "" {
					labels = append(labels, l)
				}
			}
		}
	}
	return labels
}

// SetAppPriority implements rmweb.State.
func (c *Cluster) SetAppPriority(appID string, p int) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, ok := c.appByID[appID]
	if !ok {
		return 0, fmt.Errorf("app %s not found", appID)
	}
	if !a.finish.IsZero() {
		return 0, fmt.Errorf("Application in %s state cannot be update priority.", a.state)
	}
	if p > c.sc.MaxAppPriority {
		p = c.sc.MaxAppPriority
	}
	if p < 0 {
		p = 0
	}
	a.priority = p
	return p, nil
}

// MoveApp implements rmweb.State (running containers stay where they are;
// their usage moves with the app).
func (c *Cluster) MoveApp(appID, queue string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, ok := c.appByID[appID]
	if !ok {
		return fmt.Errorf("app %s not found", appID)
	}
	q := c.resolveQueue(queue)
	if qc, ok := c.tree.ByPath[q]; !ok || !qc.IsLeaf() {
		return fmt.Errorf("queue %s is not a leaf queue", queue)
	}
	for p, u := range c.appUsageByPartition(a) {
		for x := a.queue; x != ""; x = parentPath(x) {
			c.usage[x][p] = sub(c.usage[x][p], u)
		}
		for x := q; x != ""; x = parentPath(x) {
			if c.usage[x] == nil {
				c.usage[x] = map[string]rmweb.Resource{}
			}
			c.usage[x][p] = add(c.usage[x][p], u)
		}
	}
	a.queue = q
	return nil
}

func (c *Cluster) appUsageByPartition(a *app) map[string]rmweb.Resource {
	out := map[string]rmweb.Resource{}
	if a.amNode != nil && a.finish.IsZero() {
		out[a.amNode.label] = add(out[a.amNode.label], amResource)
	}
	for _, ts := range [][]*task{a.maps, a.reduces} {
		for _, t := range ts {
			for _, at := range t.attempts {
				if at.state == "RUNNING" {
					out[at.node.label] = add(out[at.node.label], at.size)
				}
			}
		}
	}
	if a.spark != nil {
		a.spark.usage(out)
	}
	return out
}

// AddLabels implements rmweb.State.
func (c *Cluster) AddLabels(labels []rmweb.Label) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, l := range labels {
		if l.Name == "" || strings.ContainsAny(l.Name, " ,=") {
			return fmt.Errorf("invalid label name %q", l.Name)
		}
		c.labels[l.Name] = l.Exclusive
	}
	return nil
}

// RemoveLabels implements rmweb.State.
func (c *Cluster) RemoveLabels(names []string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, name := range names {
		if _, ok := c.labels[name]; !ok {
			return fmt.Errorf("Node label=%s to be removed doesn't existed in cluster node labels collection.", name)
		}
		for _, n := range c.nodes {
			if n.label == name {
				return fmt.Errorf("cannot remove label %s: node %s still has it", name, n.id)
			}
		}
		delete(c.labels, name)
	}
	return nil
}

// ReplaceNodeLabels implements rmweb.State (a node holds at most one label).
func (c *Cluster) ReplaceNodeLabels(m map[string][]string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for id, ls := range m {
		if len(ls) > 1 {
			return fmt.Errorf("node %s: a node can have at most one label, got %v", id, ls)
		}
		if _, ok := c.nodeByID[id]; !ok {
			if _, ok := c.nodeByID[id+":8041"]; !ok {
				return fmt.Errorf("unknown node %s", id)
			}
		}
		for _, l := range ls {
			if _, ok := c.labels[l]; !ok {
				return fmt.Errorf("label %s is not in the cluster's node labels", l)
			}
		}
	}
	for id, ls := range m {
		n := c.nodeByID[id]
		if n == nil {
			n = c.nodeByID[id+":8041"]
		}
		to := ""
		if len(ls) == 1 {
			to = ls[0]
		}
		// CapacityScheduler.updateLabelsOnNode: the running containers'
		// usage moves from the old partition to the new one
		// (FiCaSchedulerApp.nodePartitionUpdated).
		if to != n.label {
			for a, r := range c.onNode[n.id] {
				for q := a.queue; q != ""; q = parentPath(q) {
					if c.usage[q] == nil {
						c.usage[q] = map[string]rmweb.Resource{}
					}
					c.usage[q][n.label] = sub(c.usage[q][n.label], r)
					c.usage[q][to] = add(c.usage[q][to], r)
				}
			}
		}
		n.label = to
	}
	return nil
}
