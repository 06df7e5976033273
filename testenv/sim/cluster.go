package sim

import (
	"container/heap"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/hdfsns"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/rmweb"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// Heartbeat is the NodeManager heartbeat interval: allocation happens on it.
const Heartbeat = time.Second

// amResource is the MapReduce AM container (yarn.app.mapreduce.am.resource.mb).
var amResource = rmweb.Resource{MemoryMB: 1536, VCores: 1}

// Cluster is a simulated YARN cluster. All methods are safe for concurrent
// use: REST handlers read it while a test or yarnsim steps the clock.
type Cluster struct {
	// memoryOnly: the conf names DefaultResourceCalculator (setConf).
	memoryOnly bool

	mu  sync.Mutex
	sc  *Scenario
	rng *rand.Rand
	// luckSeed seeds every draw after the arrivals (luck): each draw
	// from its own stream keyed by what it is for (luckFor).
	luckSeed uint64

	start, now time.Time
	clusterTS  int64
	// dataNodes and offRack cache replica placement's candidates.
	dataNodes []*node
	offRack   map[string][]*node
	events    eventHeap
	seq       int64
	// schedNodes is the node count of the scheduling pass under way
	// (localityDelays), the scheduler's getNumClusterNodes.
	schedNodes int

	nodes    []*node
	nodeByID map[string]*node
	labels   map[string]bool // name → exclusive
	conf     schedconf.Conf
	version  int64
	// confFile is a file-store RM's capacity-scheduler.xml (UseConfDir).
	confFile string
	tree     *schedconf.Tree
	usage    map[string]map[string]rmweb.Resource // queue path → partition → used (ancestors included)
	// onNode is what each app holds on each node (node id → app), so a
	// node's relabel moves its running containers' usage to the new
	// partition as the Capacity Scheduler does.
	onNode    map[string]map[*app]rmweb.Resource
	amUsage   map[string]rmweb.Resource // leaf → AM resources
	apps      []*app
	appByID   map[string]*app
	active    []*app // apps not finished, in submission order
	fs        *hdfsns.FS
	specs     []JobSpec
	submitted int
	// preempt and spec are the preemption monitor and the MapReduce
	// speculator (preempt.go, speculate.go); nil when switched off.
	preempt *preemptor
	spec    *speculator
}

type node struct {
	id, host, rack, typ, label string
	total, used                rmweb.Resource
	state                      string
	containers                 int
	datanode                   bool
	lastHealth                 time.Time
}

func (n *node) free() rmweb.Resource {
	return rmweb.Resource{MemoryMB: n.total.MemoryMB - n.used.MemoryMB, VCores: n.total.VCores - n.used.VCores, GPUs: n.total.GPUs - n.used.GPUs}
}

func fits(have, need rmweb.Resource) bool {
	return have.MemoryMB >= need.MemoryMB && have.VCores >= need.VCores && have.GPUs >= need.GPUs
}

func add(a, b rmweb.Resource) rmweb.Resource {
	return rmweb.Resource{MemoryMB: a.MemoryMB + b.MemoryMB, VCores: a.VCores + b.VCores, GPUs: a.GPUs + b.GPUs}
}

func sub(a, b rmweb.Resource) rmweb.Resource {
	return rmweb.Resource{MemoryMB: a.MemoryMB - b.MemoryMB, VCores: a.VCores - b.VCores, GPUs: a.GPUs - b.GPUs}
}

// rmStartMillis is the RM's cluster timestamp (its start time, the middle
// part of every application id). Each seed is another RM start — as each
// day's RM restart is on a real cluster — so application and attempt ids
// of different runs never collide in a shared calibration history.
func rmStartMillis(start time.Time, seed int64) int64 {
	off := seed % 86400
	if off < 0 {
		off = -off
	}
	return start.Add(-time.Duration(off+1) * time.Second).UnixMilli()
}

// NewCluster builds a cluster for a scenario; seed drives task-time noise,
// replica placement and generated arrivals (same seed, same run).
func NewCluster(sc *Scenario, seed int64) (*Cluster, error) {
	c := &Cluster{
		sc: sc, rng: rand.New(rand.NewPCG(uint64(seed), uint64(seed)*0x9e3779b97f4a7c15+1)),
		start: sc.Start, now: sc.Start, clusterTS: rmStartMillis(sc.Start, seed),
		nodeByID: map[string]*node{}, labels: map[string]bool{}, appByID: map[string]*app{},
		usage: map[string]map[string]rmweb.Resource{}, onNode: map[string]map[*app]rmweb.Resource{}, amUsage: map[string]rmweb.Resource{},
		fs: hdfsns.New(), version: 1,
	}
	for _, l := range sc.Labels {
		c.labels[l.Name] = l.Exclusive
	}
	seqByRack := 0
	for _, nt := range sc.NodeTypes {
		if nt.Label != "" {
			if _, ok := c.labels[nt.Label]; !ok {
				return nil, fmt.Errorf("node type %s: label %q is not in labels", nt.Name, nt.Label)
			}
		}
		dn := nt.DataNode == nil || *nt.DataNode
		for i := 0; i < nt.Count; i++ {
			host := fmt.Sprintf("%s-%04d.sim", nt.Name, i)
			rack := nodeRack(nt, i, &seqByRack, sc.Racks)
			n := &node{id: host + ":8041", host: host, rack: rack, typ: nt.Name, label: nt.Label, state: "RUNNING",
				total: rmweb.Resource{MemoryMB: nt.MemoryMB, VCores: nt.VCores, GPUs: nt.GPUs}, datanode: dn, lastHealth: sc.Start}
			c.nodes = append(c.nodes, n)
			c.nodeByID[n.id] = n
			if dn {
				// The NameNode reports the rack the scheduler places by.
				c.fs.AddDatanode(hdfsns.Datanode{Host: host, Rack: rack})
			}
		}
	}
	conf := schedconf.Conf{}
	for k, v := range sc.Conf {
		conf[k] = v
	}
	if err := c.setConf(conf); err != nil {
		return nil, fmt.Errorf("scenario %s queues: %w", sc.Name, err)
	}
	if err := c.initPreemptionAndSpeculation(); err != nil {
		return nil, fmt.Errorf("scenario %s: %w", sc.Name, err)
	}
	c.specs = c.expandJobs()
	c.luckSeed = uint64(seed)
	if sc.LuckSeed != 0 {
		c.luckSeed = uint64(sc.LuckSeed)
	}
	for i := range c.specs {
		c.schedule(c.start.Add(c.specs[i].At), evArrival, i, nil)
	}
	c.schedule(c.start, evHeartbeat, 0, nil)
	return c, nil
}

// expandJobs turns job specs and generators into a sorted arrival list.
func (c *Cluster) expandJobs() []JobSpec {
	var out []JobSpec
	for _, j := range c.sc.Jobs {
		for r := 0; r < j.Repeat; r++ {
			k := j
			k.At = j.At + time.Duration(r)*j.Every
			if k.Name == "" {
				k.Name = j.Class
			}
			if j.Repeat > 1 {
				k.Name = fmt.Sprintf("%s-%d", k.Name, r+1)
			}
			out = append(out, k)
		}
	}
	for _, g := range c.sc.Generators {
		at := g.Start
		cls, _ := c.sc.Class(g.Class)
		for i := 0; i < g.Count; i++ {
			at += time.Duration(c.rng.ExpFloat64() * float64(g.MeanGap))
			maps := g.MapsMin + c.rng.IntN(g.MapsMax-g.MapsMin+1)
			j := JobSpec{At: at, Name: fmt.Sprintf("%s_%s_%03d", g.Class, c.start.Add(at).Format("20060102"), i), Class: g.Class,
				Queue: g.Queue, User: g.User, Maps: maps, Reduces: g.Reduces, Repeat: 1, InputRacks: g.InputRacks,
				Tags: []string{"jobclass=" + g.Class}}
			if j.User == "" {
				j.User = "etl"
			}
			if g.DeadlineProb > 0 && c.rng.Float64() < g.DeadlineProb {
				// Goal: slack × the job's time on ~25% of a typical queue share.
				est := time.Duration((cls.MapSeconds*math.Ceil(float64(maps)/20) + cls.ShuffleSeconds + cls.ReduceSeconds + 60) * float64(time.Second))
				slack := g.DeadlineSlack
				if slack == 0 {
					slack = 3
				}
				j.Tags = append(j.Tags, "deadline=+"+(time.Duration(float64(est)*slack)).Round(time.Minute).String())
			}
			out = append(out, j)
		}
	}
	sort.SliceStable(out, func(i, k int) bool { return out[i].At < out[k].At })
	return out
}

// setConf installs a validated configuration and re-parses the queue tree,
// as the RM re-initialises its queues.
func (c *Cluster) setConf(conf schedconf.Conf) error {
	if err := schedconf.ValidateWithLabels(conf, c.acceptedLabels(conf)); err != nil {
		return err
	}
	t, err := schedconf.ParseTree(conf)
	if err != nil {
		return err
	}
	resolveCapacities(t, c.partitionTotals()) // weights and absolute resources as the CS divides them
	c.conf, c.tree = conf, t
	// The Capacity Scheduler's DefaultResourceCalculator sizes containers
	// by memory alone: a 4096 MB, 4-vcore node runs eight 512 MB, 1-vcore
	// maps (recorded on 3.3.6, which names it in its scheduler conf). Only
	// a conf naming it gets memory-only fitting here; unset keeps counting
	// vcores too (DominantResourceCalculator), as every shipped scenario
	// was tuned with, though Hadoop's own default is the memory-only one.
	c.memoryOnly = strings.HasSuffix(strings.TrimSpace(conf["yarn.scheduler.capacity.resource-calculator"]), ".DefaultResourceCalculator")
	return nil
}

// fits: need fits in have by the scheduler's resource calculator.
func (c *Cluster) fits(have, need rmweb.Resource) bool {
	if c.memoryOnly {
		need.VCores = 0
	}
	return fits(have, need)
}

// Scenario returns the scenario the cluster runs.
func (c *Cluster) Scenario() *Scenario { return c.sc }

// HDFS returns the cluster's namespace (for the mini NameNode).
func (c *Cluster) HDFS() *hdfsns.FS { return c.fs }

// Now is the virtual clock.
func (c *Cluster) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// ClusterStarted is the RM start time.
func (c *Cluster) ClusterStarted() time.Time { return c.start }

// Step advances virtual time by d, processing every event due.
func (c *Cluster) Step(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.runUntil(c.now.Add(d))
}

// RunUntil advances virtual time to t.
func (c *Cluster) RunUntil(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.runUntil(t)
}

// RunUntilDone advances until every scenario job has finished, or limit of
// virtual time passes; it reports whether all finished.
func (c *Cluster) RunUntilDone(limit time.Duration) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	end := c.now.Add(limit)
	for c.now.Before(end) {
		if c.doneLocked() {
			return true
		}
		c.runUntil(c.now.Add(time.Minute))
	}
	return c.doneLocked()
}

// Done reports whether every scenario job has finished.
func (c *Cluster) Done() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.doneLocked()
}

func (c *Cluster) doneLocked() bool {
	if c.submitted < len(c.specs) {
		return false
	}
	for _, a := range c.apps {
		if a.finish.IsZero() {
			return false
		}
	}
	return true
}

func (c *Cluster) runUntil(t time.Time) {
	for len(c.events) > 0 && !c.events[0].at.After(t) {
		ev := heap.Pop(&c.events).(*event)
		c.now = ev.at
		switch ev.kind {
		case evArrival:
			c.submit(c.specs[ev.idx])
			c.submitted++
		case evHeartbeat:
			c.allocateAll()
			c.schedule(c.now.Add(Heartbeat), evHeartbeat, 0, nil)
		case evAttemptDone:
			c.attemptDone(ev.att)
		case evAMReady:
			c.amReady(ev.app)
		case evPreemptionMonitor:
			c.preemptionRound()
			c.schedule(c.now.Add(c.preempt.conf.Interval), evPreemptionMonitor, 0, nil)
		case evSpeculate:
			c.speculateRound()
			c.schedule(c.now.Add(c.spec.conf.Interval), evSpeculate, 0, nil)
		case evSparkTaskDone:
			c.sparkTaskDone(ev.app, ev.sat)
		case evSparkExecutorUp:
			c.scheduleSparkTasks(ev.app)
		case evSparkTick:
			c.sparkTickEvent(ev.app)
		}
	}
	if t.After(c.now) {
		c.now = t
	}
}

type eventKind int

const (
	evArrival eventKind = iota
	evHeartbeat
	evAttemptDone
	evAMReady
	evPreemptionMonitor
	evSpeculate
	// Spark applications (spark.go); evNone is a cancelled event.
	evSparkTaskDone
	evSparkExecutorUp
	evSparkTick
	evNone
)

type event struct {
	at   time.Time
	seq  int64
	kind eventKind
	idx  int
	att  *attempt
	app  *app
	sat  *sparkAttempt
}

type eventHeap []*event

func (h eventHeap) Len() int { return len(h) }
func (h eventHeap) Less(i, j int) bool {
	if !h[i].at.Equal(h[j].at) {
		return h[i].at.Before(h[j].at)
	}
	return h[i].seq < h[j].seq
}
func (h eventHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *eventHeap) Push(x any)   { *h = append(*h, x.(*event)) }
func (h *eventHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

func (c *Cluster) schedule(at time.Time, kind eventKind, idx int, att *attempt) *event {
	c.seq++
	e := &event{at: at, seq: c.seq, kind: kind, idx: idx, att: att}
	heap.Push(&c.events, e)
	return e
}

// TrueSpeed is the scenario's speed factor of a node type for a class.
func (c *Cluster) TrueSpeed(nodeType, class string) float64 { return c.sc.TrueSpeed(nodeType, class) }

// NodeTypeOf returns the scenario node type of a node id.
func (c *Cluster) NodeTypeOf(nodeID string) string {
	if n, ok := c.nodeByID[nodeID]; ok {
		return n.typ
	}
	return ""
}

// SetNodeState changes a NodeManager's state. A node that is not RUNNING
// gets no new containers; LOST and DECOMMISSIONED kill its containers and
// their tasks are retried elsewhere.
func (c *Cluster) SetNodeState(id, state string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, ok := c.nodeByID[id]
	if !ok {
		return fmt.Errorf("no node %s", id)
	}
	switch state {
	case "RUNNING", "UNHEALTHY", "LOST", "DECOMMISSIONED":
	default:
		return fmt.Errorf("node state %q: want RUNNING, UNHEALTHY, LOST or DECOMMISSIONED", state)
	}
	n.state = state
	if state == "LOST" || state == "DECOMMISSIONED" {
		c.killContainersOn(n)
	}
	return nil
}

// partitionOf is a node's partition, "" when unlabelled.
func (c *Cluster) partitionTotal(p string) rmweb.Resource {
	var r rmweb.Resource
	for _, n := range c.nodes {
		if n.label == p && n.state == "RUNNING" {
			r = add(r, n.total)
		}
	}
	return r
}

// labelExpr resolves the partition an app's requests ask for now: its own
// expression, else its queue's current default-node-label-expression.
func (c *Cluster) labelExpr(a *app) string {
	if a.labelExpr != "" {
		return a.labelExpr
	}
	if q, ok := c.tree.ByPath[a.queue]; ok {
		return strings.TrimSpace(q.DefaultLabelExpression)
	}
	return ""
}
