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
	"container/heap"
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
	seq  int
}

type events []event

func (e events) Len() int { return len(e) }
func (e events) Less(i, j int) bool {
	if e[i].at != e[j].at {
		return e[i].at < e[j].at
	}
	return e[i].seq < e[j].seq
}
func (e events) Swap(i, j int) { e[i], e[j] = e[j], e[i] }
func (e *events) Push(x any)   { *e = append(*e, x.(event)) }
func (e *events) Pop() any {
	old := *e
	x := old[len(old)-1]
	*e = old[:len(old)-1]
	return x
}

// Run replays jobs under cfg on pools at rate. Jobs of queues cfg does not
// list live in the default partition with no guarantee and no ceiling.
func Run(pools []Pool, jobs []Job, cfg Config, rate Rate) Result {
	js := make([]*job, len(jobs))
	order := make([]int, len(jobs))
	for i, j := range jobs {
		js[i] = &job{Job: j, idx: i, mapsLeft: j.Maps, redsLeft: j.Reduces}
		order[i] = i
	}
	total := map[string]int{}
	for _, p := range pools {
		total[p.Partition] += p.Slots
	}
	free := make([]int, len(pools))
	for i, p := range pools {
		free[i] = p.Slots
	}
	// used[queue][partition] slots.
	used := map[string]map[string]int{}
	use := func(q, part string, d int) {
		if used[q] == nil {
			used[q] = map[string]int{}
		}
		used[q][part] += d
	}
	queueOf := func(name string) Queue {
		if q, ok := cfg.Queues[name]; ok {
			return q
		}
		return Queue{}
	}
	// active: submitted, unfinished jobs per queue in arrival order.
	active := map[string][]*job{}
	var ev events
	seq := 0
	push := func(e event) { e.seq = seq; seq++; heap.Push(&ev, e) }
	for _, i := range order {
		push(event{at: jobs[i].Submit.Seconds(), kind: 0, job: i})
	}
	res := Result{ByClass: map[string][]float64{}}
	finish := make([]float64, len(jobs))
	wants := func(j *job) bool {
		if !j.amUp {
			return true
		}
		if j.mapsLeft > 0 {
			return true
		}
		return j.mapsRunning == 0 && j.redsLeft > 0
	}
	speed := func(class, typ string) float64 {
		if r := rate(class, typ); r > 0 {
			return r
		}
		return 1
	}
	// schedule hands out free slots until no queue can take one.
	schedule := func(now float64) {
		for {
			progressed := false
			for pi := range pools {
				for free[pi] > 0 {
					q, j := pick(pools[pi].Partition, active, used, total, queueOf, cfg.Exclusive, wants)
					if j == nil {
						break
					}
					free[pi]--
					use(q, pools[pi].Partition, 1)
					progressed = true
					switch {
					case !j.amUp:
						j.amUp, j.amPool = true, pi
					case j.mapsLeft > 0:
						j.mapsLeft--
						j.mapsRunning++
						d := j.MapWork/speed(j.Class, pools[pi].Type) + j.MapRead
						push(event{at: now + d, kind: 1, job: j.idx, pool: pi})
					default:
						j.redsLeft--
						j.redsRunning++
						push(event{at: now + j.ReduceSeconds, kind: 1, job: j.idx, pool: pi, red: true})
					}
				}
			}
			if !progressed {
				return
			}
		}
	}
	for ev.Len() > 0 {
		e := heap.Pop(&ev).(event)
		now := e.at
		j := js[e.job]
		switch e.kind {
		case 0:
			active[j.Queue] = append(active[j.Queue], j)
			if j.Maps+j.Reduces == 0 {
				j.done = true
			}
		case 1:
			free[e.pool]++
			use(j.Queue, pools[e.pool].Partition, -1)
			if e.red {
				j.redsRunning--
			} else {
				j.mapsRunning--
			}
			if j.mapsLeft+j.mapsRunning+j.redsLeft+j.redsRunning == 0 {
				j.done = true
				finish[j.idx] = now
				free[j.amPool]++
				use(j.Queue, pools[j.amPool].Partition, -1)
				active[j.Queue] = slices.DeleteFunc(active[j.Queue], func(x *job) bool { return x == j })
			}
		}
		// Events at the same instant are applied before slots are handed out.
		if ev.Len() > 0 && ev[0].at == now {
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

// pick chooses the queue and job that take a free slot of partition part:
// the partition's own queues first, furthest under their guarantee
// (used/guaranteed; none guaranteed last, fewest used first), up to their
// ceiling; then, if the partition lends (not exclusive, not the default),
// the default partition's queues the same way.
func pick(part string, active map[string][]*job, used map[string]map[string]int, total map[string]int,
	queueOf func(string) Queue, exclusive map[string]bool, wants func(*job) bool) (string, *job) {
	best := func(home string) (string, *job) {
		bq, bj := "", (*job)(nil)
		bScore := math.Inf(1)
		for _, q := range sortedKeys(active) {
			cfg := queueOf(q)
			if cfg.Home != home {
				continue
			}
			var first *job
			for _, j := range active[q] {
				if wants(j) {
					first = j
					break
				}
			}
			if first == nil {
				continue
			}
			u := float64(used[q][part])
			t := float64(total[part])
			if max, ok := cfg.Max[part]; ok && home == part && u+1 > max*t+1e-9 {
				continue
			}
			g := cfg.Guarantee[part] * t
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
	if part != "" && !exclusive[part] {
		return best("")
	}
	return "", nil
}

func sortedKeys(m map[string][]*job) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
