package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/rmweb"
)

// slowStart is mapreduce.job.reduce.slowstart.completedmaps (default 0.05).
const slowStart = 0.05

// amStartup is the time from AM container start to its first task requests.
const amStartup = 5 * time.Second

type app struct {
	seq                                 int
	id, jobID, name, user, queue, class string
	priority                            int
	tags                                []string
	labelExpr                           string
	submit, start, finish               time.Time
	state, finalStatus                  string
	// historyDamaged: JobHistory cannot load this job (DamageHistory).
	historyDamaged bool

	amNode    *node
	amPending bool // AM container requested, not yet allocated
	running   bool // AM up, tasks may be requested

	maps, reduces         []*task
	pendingMaps           map[int]bool
	pendingByHost         map[string][]int
	pendingByRack         map[string][]int
	pendingReduces        int
	mapsDone, reducesDone int
	lastMapFinish         time.Time
	missed                int // scheduling opportunities missed for locality
	// missedNonPartitioned counts the app's requests checked against a
	// node since its last container in the default partition
	// (nonPartitionedFirst).
	missedNonPartitioned int
	allocated            rmweb.Resource
	containers           int
	mapSize              rmweb.Resource
	inputPath            string
	memSeconds, vcoreSec float64
	gpuSec               float64
	conf                 map[string]string
	// preempted counts what preemption took (the RM app's preempted* fields).
	preempted preemptedTotals
	// nextSpeculate is when the speculator may next add an attempt.
	nextSpeculate time.Time
	// spark is a Spark application's driver state (spark.go); nil for
	// a MapReduce job.
	spark *sparkApp
	// history is the JobHistory view, built once when the job finished
	// (it never changes after), so serving the JHS stays O(jobs).
	history *rmweb.Job
}

type task struct {
	idx      int
	typ      string // MAP or REDUCE
	state    string
	bytes    int64
	hosts    []string
	attempts []*attempt
	start    time.Time
	finish   time.Time
}

type attempt struct {
	app                                       *app
	task                                      *task
	n                                         int
	node                                      *node
	state                                     string
	start, finish, shuffleFinish, mergeFinish time.Time
	locality                                  string
	bytes                                     int64
	size                                      rmweb.Resource
	ev                                        *event
	waitingShuffle                            bool
	shuffleWork, reduceWork                   float64 // seconds at this node's speed
	diag                                      string  // diagnostics (why it was killed)
	// cpu is a map's processing time (its duration less the read), what
	// it reports as CPU_MILLISECONDS.
	cpu time.Duration
}

// submit creates the app for a job spec: its input file with rack-aware
// replicas on DataNode hosts, its tasks, and its AM request.
func (c *Cluster) submit(j JobSpec) *app {
	cls, _ := c.sc.Class(j.Class)
	seq := len(c.apps) + 1
	a := &app{seq: seq, id: fmt.Sprintf("application_%d_%04d", c.clusterTS, seq), jobID: fmt.Sprintf("job_%d_%04d", c.clusterTS, seq),
		name: j.Name, user: j.User, queue: c.resolveQueue(j.Queue), class: j.Class, priority: j.Priority,
		tags: append([]string(nil), j.Tags...), labelExpr: j.Label, submit: c.now, state: "ACCEPTED", finalStatus: "UNDEFINED",
		amPending: true, pendingMaps: map[int]bool{}, pendingByHost: map[string][]int{}, pendingByRack: map[string][]int{},
		mapSize: rmweb.Resource{MemoryMB: cls.MapMemoryMB, VCores: cls.MapVCores, GPUs: cls.MapGPUs}}
	if a.priority > c.sc.MaxAppPriority {
		a.priority = c.sc.MaxAppPriority
	}
	if q, ok := c.tree.ByPath[a.queue]; ok && j.Priority == 0 {
		a.priority = q.DefaultAppPriority
	}
	a.inputPath = fmt.Sprintf("/data/%s/%s/part-00000", j.Class, a.jobID)
	block := c.sc.BlockSizeMB << 20
	size := int64(j.Maps) * block
	replicas := make([][]string, j.Maps)
	luck := c.luckFor(appLuck(a), "blocks")
	for i := range replicas {
		replicas[i] = c.placeReplicasIn(luck, j.InputRacks)
	}
	f := c.fs.AddFile(a.inputPath, size, block, replicas)
	if cls.Spark != nil {
		c.initSpark(a, cls, f)
		c.apps = append(c.apps, a)
		c.appByID[a.id] = a
		c.active = append(c.active, a)
		return a
	}
	for i, b := range f.Blocks {
		t := &task{idx: i, typ: "MAP", state: "SCHEDULED", bytes: b.Length, hosts: b.Hosts}
		a.maps = append(a.maps, t)
	}
	for i := 0; i < j.Reduces; i++ {
		a.reduces = append(a.reduces, &task{idx: i, typ: "REDUCE", state: "NEW"})
	}
	a.conf = map[string]string{
		"mapreduce.job.name": a.name, "mapreduce.job.queuename": a.queue, "mapreduce.job.user.name": a.user,
		"mapreduce.input.fileinputformat.inputdir": "hdfs://namenode:8020" + strings.TrimSuffix(a.inputPath, "/part-00000"),
		"mapreduce.map.memory.mb":                  fmt.Sprint(cls.MapMemoryMB), "mapreduce.map.cpu.vcores": fmt.Sprint(cls.MapVCores),
		"mapreduce.reduce.memory.mb": fmt.Sprint(cls.MapMemoryMB), "mapreduce.reduce.cpu.vcores": fmt.Sprint(cls.MapVCores), // reduces run in the map size here
		"mapreduce.job.reduces": fmt.Sprint(j.Reduces),
		"mapreduce.job.maps":    fmt.Sprint(j.Maps), "mapreduce.job.reduce.slowstart.completedmaps": fmt.Sprint(slowStart),
		"mapreduce.job.tags": strings.Join(j.Tags, ","), "dfs.blocksize": fmt.Sprint(block),
	}
	if cls.MapGPUs > 0 {
		a.conf["mapreduce.map.resource.yarn.io/gpu"] = fmt.Sprint(cls.MapGPUs)
	}
	c.apps = append(c.apps, a)
	c.appByID[a.id] = a
	c.active = append(c.active, a)
	return a
}

// resolveQueue accepts a leaf's short name or full path.
func (c *Cluster) resolveQueue(q string) string {
	if q == "" {
		q = "default"
	}
	if _, ok := c.tree.ByPath[q]; ok {
		return q
	}
	for _, l := range c.tree.Leaves() {
		if l.Name == q {
			return l.Path
		}
	}
	return "root." + q
}

// placeReplicas picks 3 DataNode hosts the way HDFS's default policy does:
// one random node, then two on one other rack.
func (c *Cluster) placeReplicas(luck *rand.Rand) []string {
	// DataNodes and, per rack, the DataNodes elsewhere: built once (the
	// set of DataNodes is fixed when files are written), so placing a
	// block costs O(1), not O(nodes).
	if c.dataNodes == nil {
		c.offRack = map[string][]*node{}
		racks := map[string]bool{}
		for _, n := range c.nodes {
			if n.datanode {
				c.dataNodes = append(c.dataNodes, n)
				racks[n.rack] = true
			}
		}
		for r := range racks {
			for _, n := range c.dataNodes {
				if n.rack != r {
					c.offRack[r] = append(c.offRack[r], n)
				}
			}
		}
	}
	dns := c.dataNodes
	if len(dns) == 0 {
		return nil
	}
	first := dns[luck.IntN(len(dns))]
	other := c.offRack[first.rack]
	if len(other) == 0 {
		other = dns
	}
	return c.replicaHosts(luck, first, other)
}

// replicaHosts is HDFS's default placement after the first replica: two
// more on distinct hosts drawn from other (off the first's rack when it
// can), up to 20 draws.
func (c *Cluster) replicaHosts(luck *rand.Rand, first *node, other []*node) []string {
	hosts := []string{first.host}
	for tries := 0; len(hosts) < 3 && tries < 20; tries++ {
		n := other[luck.IntN(len(other))]
		dup := false
		for _, h := range hosts {
			dup = dup || h == n.host
		}
		if !dup {
			hosts = append(hosts, n.host)
		}
	}
	return hosts
}

// amReady: the AM has started and asks for its maps.
func (c *Cluster) amReady(a *app) {
	if !a.finish.IsZero() {
		return
	}
	if a.amNode == nil || a.running {
		return // an AM preempted before it was up
	}
	a.running, a.state = true, "RUNNING"
	if a.spark != nil {
		c.sparkDriverReady(a)
		return
	}
	for _, t := range a.maps {
		if t.state != "SUCCEEDED" { // a restarted AM recovers finished tasks
			c.addPendingMap(a, t.idx)
		}
	}
	c.maybeRequestReduces(a)
}

func (c *Cluster) addPendingMap(a *app, idx int) {
	a.pendingMaps[idx] = true
	for _, h := range a.maps[idx].hosts {
		a.pendingByHost[h] = append(a.pendingByHost[h], idx)
		if n, ok := c.nodeByID[h+":8041"]; ok {
			a.pendingByRack[n.rack] = append(a.pendingByRack[n.rack], idx)
		}
	}
}

func (c *Cluster) maybeRequestReduces(a *app) {
	if a.pendingReduces > 0 || len(a.reduces) == 0 {
		return
	}
	need := int(math.Ceil(slowStart * float64(len(a.maps))))
	if a.mapsDone < need {
		return
	}
	for _, t := range a.reduces {
		if t.state == "NEW" {
			t.state = "SCHEDULED"
			a.pendingReduces++
		}
	}
}

// hasDemand reports whether the app wants a container now.
func (a *app) hasDemand() bool {
	return a.finish.IsZero() && (a.amPending || (a.running && (len(a.pendingMaps) > 0 || a.pendingReduces > 0 || a.spark != nil && a.spark.wanted() > 0)))
}

// startAttempt runs a task attempt on a node: the container is allocated,
// its duration drawn (work / speed(node type, class) × log-normal noise +
// read time by locality) and its end scheduled.
func (c *Cluster) startAttempt(a *app, t *task, n *node, locality string) {
	cls, _ := c.sc.Class(a.class)
	at := &attempt{app: a, task: t, n: len(t.attempts), node: n, state: "RUNNING", start: c.now, locality: locality, size: a.mapSize}
	t.attempts = append(t.attempts, at)
	if t.start.IsZero() {
		t.start = c.now
	}
	t.state = "RUNNING"
	c.allocate(a, n, at.size)
	if n.label == "" {
		a.missedNonPartitioned = 0
	}
	speed := c.sc.SpeedAt(n.typ, a.class, c.now.Sub(c.start))
	luck := c.luckFor(appLuck(a), t.typ, strconv.Itoa(t.idx), strconv.Itoa(at.n))
	noise := func() float64 { return math.Exp(c.sc.NoiseSigma * luck.NormFloat64()) }
	if t.typ == "MAP" {
		frac := float64(t.bytes) / float64(c.sc.BlockSizeMB<<20)
		bw := c.sc.Bandwidth.NodeLocal
		switch locality {
		case "RACK_LOCAL":
			bw = c.sc.Bandwidth.RackLocal
		case "OFF_SWITCH":
			bw = c.sc.Bandwidth.OffSwitch
		}
		read := float64(t.bytes) / (bw * (1 << 20))
		proc := cls.MapSeconds * frac / speed * noise()
		d := proc + read
		at.bytes, at.cpu = t.bytes, secs(proc)
		at.ev = c.schedule(c.now.Add(secs(d)), evAttemptDone, 0, at)
		return
	}
	at.shuffleWork = cls.ShuffleSeconds * noise()
	at.reduceWork = cls.ReduceSeconds / speed * noise()
	c.scheduleReduce(at)
}

// scheduleReduce sets a reduce's end once its shuffle can finish: not before
// the last map has finished (plus the shuffle of its output).
func (c *Cluster) scheduleReduce(at *attempt) {
	a := at.app
	if a.mapsDone < len(a.maps) {
		at.waitingShuffle = true
		return
	}
	at.waitingShuffle = false
	sf := at.start.Add(secs(at.shuffleWork))
	if tail := a.lastMapFinish.Add(secs(at.shuffleWork / 4)); tail.After(sf) {
		sf = tail
	}
	if sf.Before(c.now) {
		sf = c.now
	}
	at.shuffleFinish = sf
	at.mergeFinish = sf.Add(secs(at.reduceWork * 0.1))
	at.ev = c.schedule(sf.Add(secs(at.reduceWork)), evAttemptDone, 0, at)
}

func secs(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

func (c *Cluster) attemptDone(at *attempt) {
	if at.state != "RUNNING" {
		return
	}
	a, t := at.app, at.task
	at.state, at.finish = "SUCCEEDED", c.now
	t.state, t.finish = "SUCCEEDED", c.now
	c.release(a, at.node, at.size)
	c.killLosers(at)
	if t.typ == "MAP" {
		a.mapsDone++
		a.lastMapFinish = c.now
		c.maybeRequestReduces(a)
		if a.mapsDone == len(a.maps) {
			for _, r := range a.reduces {
				for _, ra := range r.attempts {
					if ra.state == "RUNNING" && ra.waitingShuffle {
						c.scheduleReduce(ra)
					}
				}
			}
		}
	} else {
		a.reducesDone++
	}
	if a.mapsDone == len(a.maps) && a.reducesDone == len(a.reduces) {
		c.finishApp(a, "FINISHED", "SUCCEEDED")
	}
}

func (c *Cluster) finishApp(a *app, state, final string) {
	a.state, a.finalStatus, a.finish = state, final, c.now
	a.running = false
	if a.amNode != nil {
		c.release(a, a.amNode, amResource)
		c.amUsage[a.queue] = sub(c.amUsage[a.queue], amResource)
	}
}

// killContainersOn fails every container of a lost node; tasks are retried.
func (c *Cluster) killContainersOn(n *node) {
	for _, a := range c.apps {
		if !a.finish.IsZero() {
			continue
		}
		for _, ts := range [][]*task{a.maps, a.reduces} {
			for _, t := range ts {
				for _, at := range t.attempts {
					if at.state == "RUNNING" && at.node == n {
						c.killAttempt(at, "")
					}
				}
			}
		}
		if a.spark != nil {
			c.sparkExecutorsLost(a, n)
		}
		if a.amNode == n {
			c.finishApp(a, "FAILED", "FAILED")
		}
	}
}

// killAttempt ends a running attempt as KILLED: its container is released
// and its work is lost. Unless another attempt of the task still runs (a
// speculative one) or has succeeded, the task is asked for again and
// re-runs from the start (MapReduce keeps no partial map output).
func (c *Cluster) killAttempt(at *attempt, diag string) {
	a, t := at.app, at.task
	at.state, at.finish, at.diag = "KILLED", c.now, diag
	c.release(a, at.node, at.size)
	if t.state == "SUCCEEDED" {
		return
	}
	for _, o := range t.attempts {
		if o.state == "RUNNING" {
			return
		}
	}
	t.state = "SCHEDULED"
	if t.typ == "MAP" {
		if !a.pendingMaps[t.idx] {
			c.addPendingMap(a, t.idx)
		}
	} else {
		a.pendingReduces++
	}
}

// allocate charges a container to the node, the app and its queue chain.
func (c *Cluster) allocate(a *app, n *node, r rmweb.Resource) {
	n.used = add(n.used, r)
	n.containers++
	a.allocated = add(a.allocated, r)
	a.containers++
	if c.onNode[n.id] == nil {
		c.onNode[n.id] = map[*app]rmweb.Resource{}
	}
	c.onNode[n.id][a] = add(c.onNode[n.id][a], r)
	for q := a.queue; q != ""; q = parentPath(q) {
		if c.usage[q] == nil {
			c.usage[q] = map[string]rmweb.Resource{}
		}
		c.usage[q][n.label] = add(c.usage[q][n.label], r)
	}
}

func (c *Cluster) release(a *app, n *node, r rmweb.Resource) {
	n.used = sub(n.used, r)
	n.containers--
	a.allocated = sub(a.allocated, r)
	a.containers--
	if held := sub(c.onNode[n.id][a], r); held.MemoryMB <= 0 && held.VCores <= 0 && held.GPUs <= 0 {
		delete(c.onNode[n.id], a)
	} else {
		c.onNode[n.id][a] = held
	}
	for q := a.queue; q != ""; q = parentPath(q) {
		c.usage[q][n.label] = sub(c.usage[q][n.label], r)
	}
}

func parentPath(q string) string {
	i := strings.LastIndex(q, ".")
	if i < 0 {
		return ""
	}
	return q[:i]
}
