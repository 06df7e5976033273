// Package replay predicts each job class's mean completion time under a
// candidate queue configuration by replaying an observed workload (the
// jobs a day of JobHistory shows: arrival, queue, class, tasks, work at
// speed 1) on the cluster's slots with the calibrated rates CR(node type,
// class). Run under the admin's configuration and under a candidate on the
// same workload, it is the per-class counterfactual the do-no-harm check
// asks for (issue 32): a class the candidate makes slower shows as slower
// in the same replay, whatever the day's load.
//
// The model is the Capacity Scheduler's, reduced to what a configuration
// changes: partitions of slots by node type; each leaf lives in its home
// partition with a guarantee and a ceiling there; free slots go to the
// queue furthest under its guarantee (used/guaranteed), then to queues
// over it up to their ceiling; within a queue jobs are served first come
// first served (the leaf's FIFO ordering policy); a non-exclusive
// partition lends its idle slots to default-partition queues, and a lent
// slot comes back when its task ends (no preemption). A job takes one slot
// for its AM, then its maps, then its reduces. Not modelled: locality
// waits, reduce slow-start, user limits, the AM share limit, noise and
// speculation; a task's time is its work at speed 1 over its class's rate
// on the node type, plus its read time (not scaled).
package replay

import (
	"maps"
	"math"
	"slices"
	"sort"
	"time"
)

// Pool is one partition's slots of one node type.
type Pool struct {
	Partition, Type string
	Slots           int
}

// Job is one observed job.
type Job struct {
	Queue, Class string
	Submit       time.Duration // since the workload's start
	Maps         int
	Reduces      int
	// MapWork is one map's processing at speed 1 and MapRead its read
	// time (seconds); ReduceSeconds one reduce's time as observed.
	MapWork, MapRead, ReduceSeconds float64
}

// Queue is one leaf's place in a configuration: its home partition ("" the
// default) and its guaranteed and maximum share (0..1) of each partition.
type Queue struct {
	Home           string
	Guarantee, Max map[string]float64
}

// Config is a configuration as the replay sees it.
type Config struct {
	Queues map[string]Queue
	// Exclusive partitions lend nothing to the default partition's queues.
	Exclusive map[string]bool
}

// Rate is CR(node type, class) relative to speed 1 (<= 0 counts as 1).
type Rate func(class, nodeType string) float64

// Result is each class's completion times (seconds), in job order.
type Result struct {
	ByClass map[string][]float64
}

// Mean is the mean completion of a class's jobs (NaN: none).
func (r Result) Mean(class string) float64 {
	xs := r.ByClass[class]
	if len(xs) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// MeanAll is the mean completion over every job.
func (r Result) MeanAll() float64 {
	s, n := 0.0, 0
	for _, xs := range r.ByClass {
		for _, x := range xs {
			s += x
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return s / float64(n)
}

// Classes are the classes with jobs, sorted.
func (r Result) Classes() []string {
	var out []string
	for c := range r.ByClass {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}

// job is a job as it runs.
type job struct {
	Job
	idx                      int
	amUp                     bool
	mapsLeft, redsLeft       int // not yet started
	mapsRunning, redsRunning int
	amPool                   int
	done                     bool
}

type event struct {
	at   float64
	kind int // 0 arrival, 1 task end
	job  int
	pool int
	red  bool // a reduce ended (else a map)
	n    int  // tasks that end (task ends); the job's tasks started together on one pool end together
	seq  int
}

// events is a min-heap of events by time, then by the order they were
// pushed (typed, not container/heap: boxing each event into an interface
// was a fifth of the replay's time).
type events []event

func (e events) less(i, j int) bool {
	if e[i].at != e[j].at {
		return e[i].at < e[j].at
	}
	return e[i].seq < e[j].seq
}

func (e *events) push(x event) {
	*e = append(*e, x)
	h := *e
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if !h.less(i, p) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (e *events) pop() event {
	h := *e
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h = h[:n]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < n && h.less(l, m) {
			m = l
		}
		if r < n && h.less(r, m) {
			m = r
		}
		if m == i {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	*e = h
	return top
}

// Run replays jobs under cfg on pools at rate. Jobs of queues cfg does not
// list live in the default partition with no guarantee and no ceiling.
func Run(pools []Pool, jobs []Job, cfg Config, rate Rate) Result {
	js := make([]*job, len(jobs))
	for i, j := range jobs {
		js[i] = &job{Job: j, idx: i, mapsLeft: j.Maps, redsLeft: j.Reduces}
	}
	// Partitions and queues by index: the replay runs once per candidate
	// and per day, and looking them up by name per slot handed out was
	// most of its time.
	parts := newPartitions(pools, cfg)
	total := make([]int, len(parts.names))
	for _, p := range pools {
		total[parts.index[p.Partition]] += p.Slots
	}
	free := make([]int, len(pools))
	for i, p := range pools {
		free[i] = p.Slots
	}
	queues, queueIdx := newQueues(jobs, cfg, parts)
	var ev events
	seq := 0
	push := func(e event) { e.seq = seq; seq++; ev.push(e) }
	for i := range jobs {
		push(event{at: jobs[i].Submit.Seconds(), kind: 0, job: i})
	}
	res := Result{ByClass: map[string][]float64{}}
	finish := make([]float64, len(jobs))
	// speed[class][pool]: the rate, asked once per class and pool.
	speed := map[string][]float64{}
	speedOf := func(class string, pool int) float64 {
		sp, ok := speed[class]
		if !ok {
			sp = make([]float64, len(pools))
			for i, p := range pools {
				sp[i] = 1
				if r := rate(class, p.Type); r > 0 {
					sp[i] = r
				}
			}
			speed[class] = sp
		}
		return sp[pool]
	}
	poolPart := make([]int, len(pools))
	for i, p := range pools {
		poolPart[i] = parts.index[p.Partition]
	}
	// started counts the tasks one schedule call starts per job, pool and
	// kind: they end at the same instant, so they are one event (a wave of
	// a job's maps was as many events, the replay's main cost).
	type startKey struct {
		job, pool int
		red       bool
	}
	started := map[startKey]int{}
	var order []startKey
	start := func(k startKey) {
		if started[k] == 0 {
			order = append(order, k)
		}
		started[k]++
	}
	// schedule hands out free slots until no queue can take one.
	schedule := func(now float64) {
		for {
			progressed := false
			for pi := range pools {
				for free[pi] > 0 {
					q, j := pick(poolPart[pi], parts, queues, total)
					if j == nil {
						break
					}
					free[pi]--
					q.used[poolPart[pi]]++
					progressed = true
					switch {
					case !j.amUp:
						j.amUp, j.amPool = true, pi
					case j.mapsLeft > 0:
						j.mapsLeft--
						j.mapsRunning++
						start(startKey{j.idx, pi, false})
					default:
						j.redsLeft--
						j.redsRunning++
						start(startKey{j.idx, pi, true})
					}
				}
			}
			if !progressed {
				break
			}
		}
		for _, k := range order {
			j := js[k.job]
			d := j.ReduceSeconds
			if !k.red {
				d = j.MapWork/speedOf(j.Class, k.pool) + j.MapRead
			}
			push(event{at: now + d, kind: 1, job: k.job, pool: k.pool, red: k.red, n: started[k]})
			delete(started, k)
		}
		order = order[:0]
	}
	for len(ev) > 0 {
		e := ev.pop()
		now := e.at
		j := js[e.job]
		q := queues[queueIdx[e.job]]
		switch e.kind {
		case 0:
			q.active = append(q.active, j)
			if j.Maps+j.Reduces == 0 {
				j.done = true
			}
		case 1:
			free[e.pool] += e.n
			q.used[poolPart[e.pool]] -= e.n
			if e.red {
				j.redsRunning -= e.n
			} else {
				j.mapsRunning -= e.n
			}
			if j.mapsLeft+j.mapsRunning+j.redsLeft+j.redsRunning == 0 {
				j.done = true
				finish[j.idx] = now
				free[j.amPool]++
				q.used[poolPart[j.amPool]]--
				q.active = slices.DeleteFunc(q.active, func(x *job) bool { return x == j })
			}
		}
		// Events at the same instant are applied before slots are handed out.
		if len(ev) > 0 && ev[0].at == now {
			continue
		}
		schedule(now)
	}
	for i, j := range jobs {
		if js[i].done && finish[i] > 0 {
			res.ByClass[j.Class] = append(res.ByClass[j.Class], finish[i]-j.Submit.Seconds())
		} else if !js[i].done {
			res.ByClass[j.Class] = append(res.ByClass[j.Class], math.Inf(1))
		}
	}
	return res
}

// partitions names every partition a pool or a queue's home mentions
// (the default, "", always), by index.
type partitions struct {
	names     []string
	index     map[string]int
	exclusive []bool
	def       int // the default partition's index
}

func newPartitions(pools []Pool, cfg Config) partitions {
	p := partitions{index: map[string]int{}}
	add := func(name string) {
		if _, ok := p.index[name]; !ok {
			p.index[name] = len(p.names)
			p.names = append(p.names, name)
			p.exclusive = append(p.exclusive, cfg.Exclusive[name])
		}
	}
	add("")
	for _, pl := range pools {
		add(pl.Partition)
	}
	for _, name := range slices.Sorted(maps.Keys(cfg.Queues)) {
		add(cfg.Queues[name].Home)
	}
	p.def = p.index[""]
	return p
}

// queue is one leaf as the replay runs it: its place in cfg by partition
// index, the slots it holds and its submitted, unfinished jobs in arrival
// order.
type queue struct {
	home   int
	guar   []float64 // share of each partition (0..1)
	max    []float64
	hasMax []bool
	used   []int
	active []*job
}

// newQueues are the jobs' queues in name order (the order ties go by),
// and each job's queue's index.
func newQueues(jobs []Job, cfg Config, parts partitions) ([]*queue, []int) {
	names := map[string]bool{}
	for _, j := range jobs {
		names[j.Queue] = true
	}
	sorted := slices.Sorted(maps.Keys(names))
	idx := map[string]int{}
	out := make([]*queue, len(sorted))
	for i, name := range sorted {
		idx[name] = i
		c := cfg.Queues[name] // the zero Queue where cfg does not list it
		q := &queue{home: parts.index[c.Home], guar: make([]float64, len(parts.names)), max: make([]float64, len(parts.names)),
			hasMax: make([]bool, len(parts.names)), used: make([]int, len(parts.names))}
		for pi, pn := range parts.names {
			q.guar[pi] = c.Guarantee[pn]
			q.max[pi], q.hasMax[pi] = c.Max[pn]
		}
		out[i] = q
	}
	of := make([]int, len(jobs))
	for i, j := range jobs {
		of[i] = idx[j.Queue]
	}
	return out, of
}

// wants: the job can take a slot now (its AM, a map, or, once its maps
// are done, a reduce).
func (j *job) wants() bool {
	if !j.amUp || j.mapsLeft > 0 {
		return true
	}
	return j.mapsRunning == 0 && j.redsLeft > 0
}

// pick chooses the queue and job that take a free slot of partition part:
// the partition's own queues first, furthest under their guarantee
// (used/guaranteed; none guaranteed last, fewest used first), up to their
// ceiling; then, if the partition lends (not exclusive, not the default),
// the default partition's queues the same way.
func pick(part int, parts partitions, queues []*queue, total []int) (*queue, *job) {
	best := func(home int) (*queue, *job) {
		var bq *queue
		var bj *job
		bScore := math.Inf(1)
		for _, q := range queues {
			if q.home != home {
				continue
			}
			var first *job
			for _, j := range q.active {
				if j.wants() {
					first = j
					break
				}
			}
			if first == nil {
				continue
			}
			u := float64(q.used[part])
			t := float64(total[part])
			if q.hasMax[part] && home == part && u+1 > q.max[part]*t+1e-9 {
				continue
			}
			g := q.guar[part] * t
			if home != part {
				g = 0 // a guest's guarantee is in its own partition
			}
			score := 1e6 + u // none guaranteed: after every guaranteed queue
			if g > 0 {
				score = u / g
			}
			if score < bScore {
				bq, bj, bScore = q, first, score
			}
		}
		return bq, bj
	}
	if q, j := best(part); j != nil {
		return q, j
	}
	if part != parts.def && !parts.exclusive[part] {
		return best(parts.def)
	}
	return nil, nil
}
