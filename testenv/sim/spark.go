package sim

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/hdfsns"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/rmweb"
)

// A Spark-on-YARN application (cluster mode), as the mini cluster runs it:
// the driver runs in the AM container; executors are containers of the
// app's queue, asked for through the same scheduler as MapReduce's tasks
// (no locality in executor requests); each executor runs one task per
// core. Stages run one after another; a stage's tasks go to free executor
// cores, the input stage's preferring its blocks' hosts and waiting up to
// spark.locality.wait for one before launching anywhere (one timer per
// stage, reset by a node-local launch, as TaskSetManager's locality
// levels). A task's executorRunTime is its stage's work / speed(executor
// type, class, stage) times log-normal noise; its duration adds a fixed
// deserialize, result-serialization and scheduler delay.
//
// Dynamic allocation (ExecutorAllocationManager): after the backlog has
// lasted schedulerBacklogTimeout the target grows by 1, 2, 4, ... each
// sustainedSchedulerBacklogTimeout, up to the executors the pending and
// running tasks need and maxExecutors; an executor idle for
// executorIdleTimeout is released while more than that are held (never
// below minExecutors). Speculation (spark.speculation): once 75% of a
// stage's tasks succeeded, a task running longer than 1.5× their median
// gets one copy on another host; the first to succeed wins and the other
// is KILLED "another attempt succeeded".
//
// Not modelled: a DAG of stages (they form a chain), shuffle reads and
// their locality, input read time (executorRunTime is compute only),
// executor failures other than node loss, preemption of executors
// (preempt.go picks MapReduce containers only), task failures and
// retries, barrier and stage-level resource profiles, the external
// shuffle service, and the driver's own CPU.

const (
	// executorStartup is from an executor's container start to its
	// registering with the driver.
	executorStartup = 3 * time.Second
	// sparkTick is how often the driver's allocation manager, locality
	// timers and speculation are evaluated.
	sparkTick = time.Second
	// Fixed parts of a task's duration besides executorRunTime (ms).
	sparkDeserializeMs, sparkResultSerMs, sparkSchedulerDelayMs = 12, 1, 5
	// speculationQuantile and speculationMultiplier are Spark's defaults.
	speculationQuantile, speculationMultiplier = 0.75, 1.5
)

type sparkApp struct {
	spec      *SparkClassSpec
	execSize  rmweb.Resource
	target    int // numExecutorsTarget
	executors []*executor
	stages    []*sparkStage
	cur       int // the running stage
	nextTask  int64
	// backlog: when pending tasks were first seen waiting, and the next
	// ramp-up and how many executors it adds.
	backlogSince, nextRamp time.Time
	rampAdd                int
	ticking                bool
}

type executor struct {
	id              string
	seq             int // container sequence
	node            *node
	cores           int64
	gpus            int64
	add, up, remove time.Time
	removeReason    string
	// released: the container was given back when the app finished
	// (Spark's History Server still lists such executors as active).
	released          bool
	running           int
	idleSince         time.Time
	completed, failed int
	totalDurationMs   int64
	totalInputBytes   int64
}

func (e *executor) live() bool { return e.remove.IsZero() && !e.released }

type sparkStage struct {
	id                        int
	spec                      SparkStageSpec
	tasks                     []*sparkTask
	attempts                  []*sparkAttempt // every task attempt, in launch order
	submit, firstLaunch, done time.Time
	pending                   []int // task indices waiting, in order
	succeeded                 int
	lastLocal                 time.Time // locality timer
	input                     bool
}

type sparkTask struct {
	idx     int
	bytes   int64
	hosts   []string
	done    bool
	running []*sparkAttempt
}

type sparkAttempt struct {
	taskID         int64
	stage          *sparkStage
	task           *sparkTask
	attempt        int
	exec           *executor
	status         string // RUNNING, SUCCESS, KILLED, FAILED
	launch, finish time.Time
	runMs          int64
	locality       string
	speculative    bool
	errorMessage   string
	ev             *event
}

func (s *sparkApp) liveExecutors() int {
	n := 0
	for _, e := range s.executors {
		if e.live() {
			n++
		}
	}
	return n
}

// wanted is how many executor containers the driver still asks for.
func (s *sparkApp) wanted() int { return max(0, s.target-s.liveExecutors()) }

// initSpark sets up a Spark app's stages for a job spec: the input
// stage's tasks are the input file's blocks.
func (c *Cluster) initSpark(a *app, cls ClassSpec, f *hdfsns.File) {
	sp := cls.Spark
	s := &sparkApp{spec: sp, execSize: rmweb.Resource{MemoryMB: sp.ExecutorMemoryMB, VCores: sp.ExecutorCores, GPUs: sp.ExecutorGPUs}}
	if sp.ExecutorGPUs > 0 && sp.GPUShare > 0 && c.luckFor(appLuck(a), "gpu-share").Float64() >= sp.GPUShare {
		s.execSize.GPUs = 0 // this run's executors ask no GPUs
	}
	for k, st := range sp.Stages {
		stg := &sparkStage{id: k, spec: st, input: k == 0}
		n := len(f.Blocks)
		if k == 0 {
			for i, b := range f.Blocks {
				stg.tasks = append(stg.tasks, &sparkTask{idx: i, bytes: b.Length, hosts: b.Hosts})
			}
		} else {
			n = max(1, int(math.Ceil(float64(n)*st.Tasks)))
			for i := 0; i < n; i++ {
				stg.tasks = append(stg.tasks, &sparkTask{idx: i})
			}
		}
		s.stages = append(s.stages, stg)
	}
	a.spark = s
	a.conf = map[string]string{"spark.app.name": a.name, "spark.yarn.queue": a.queue, "spark.executor.cores": fmt.Sprint(sp.ExecutorCores),
		"spark.executor.instances": fmt.Sprint(sp.Executors), "spark.dynamicAllocation.enabled": fmt.Sprint(sp.Dynamic != nil),
		"spark.speculation": fmt.Sprint(sp.Speculation), "spark.locality.wait": sp.LocalityWait.String()}
}

// sparkDriverReady: the driver is up; it asks for its executors and
// submits the first stage.
func (c *Cluster) sparkDriverReady(a *app) {
	s := a.spark
	if s.spec.Dynamic != nil {
		s.target = s.spec.Dynamic.Initial
	} else {
		s.target = s.spec.Executors
	}
	c.submitStage(a, 0)
	if !s.ticking {
		s.ticking = true
		ev := c.schedule(c.now.Add(sparkTick), evSparkTick, 0, nil)
		ev.app = a
	}
}

func (c *Cluster) submitStage(a *app, k int) {
	s := a.spark
	s.cur = k
	st := s.stages[k]
	st.submit, st.lastLocal = c.now, c.now
	for _, t := range st.tasks {
		if !t.done {
			st.pending = append(st.pending, t.idx)
		}
	}
	c.scheduleSparkTasks(a)
}

// trySparkExecutor places one of the app's executor containers on n.
func (c *Cluster) trySparkExecutor(a *app, n *node, total rmweb.Resource, borrowed bool) bool {
	s := a.spark
	if !a.running || s.wanted() == 0 || !c.fits(n.free(), s.execSize) || !c.withinMax(a.queue, n.label, s.execSize, total, borrowed) {
		return false
	}
	if !c.nonPartitionedFirst(a, n, borrowed) {
		return false
	}
	e := &executor{id: fmt.Sprint(len(s.executors) + 1), seq: len(s.executors) + 2, node: n, cores: s.execSize.VCores, gpus: s.execSize.GPUs,
		add: c.now, up: c.now.Add(executorStartup)}
	if n.total.GPUs == 0 {
		e.gpus = 0
	}
	s.executors = append(s.executors, e)
	c.allocate(a, n, s.execSize)
	if n.label == "" {
		a.missedNonPartitioned = 0
	}
	ev := c.schedule(e.up, evSparkExecutorUp, 0, nil)
	ev.app = a
	return true
}

// executorType is the node type an executor's tasks run at.
func (e *executor) typ() string { return ExecutorType(e.node.typ, e.gpus) }

func (e *executor) free() int64 { return e.cores - int64(e.running) }

// scheduleSparkTasks offers every registered executor's free cores to the
// running stage's pending tasks.
func (c *Cluster) scheduleSparkTasks(a *app) {
	s := a.spark
	if !a.running || s.cur >= len(s.stages) {
		return
	}
	st := s.stages[s.cur]
	for _, e := range s.executors {
		for e.live() && !c.now.Before(e.up) && e.free() > 0 && len(st.pending) > 0 {
			pos, locality := -1, ""
			if st.input {
				for i, idx := range st.pending {
					if hasHost(st.tasks[idx].hosts, e.node.host) {
						pos, locality = i, "NODE_LOCAL"
						break
					}
				}
				if pos < 0 && c.now.Sub(st.lastLocal) >= s.spec.LocalityWait {
					pos, locality = 0, "ANY"
				}
			} else {
				pos, locality = 0, "NO_PREF"
			}
			if pos < 0 {
				break
			}
			idx := st.pending[pos]
			st.pending = append(st.pending[:pos], st.pending[pos+1:]...)
			if locality == "NODE_LOCAL" {
				st.lastLocal = c.now
			}
			c.launchSparkTask(a, st, st.tasks[idx], e, locality, false)
		}
	}
}

func hasHost(hosts []string, h string) bool {
	for _, x := range hosts {
		if x == h {
			return true
		}
	}
	return false
}

func (c *Cluster) launchSparkTask(a *app, st *sparkStage, t *sparkTask, e *executor, locality string, speculative bool) {
	s := a.spark
	work := st.spec.TaskSeconds
	if st.input {
		work *= float64(t.bytes) / float64(c.sc.BlockSizeMB<<20)
	}
	speed := c.sc.SparkSpeed(a.class, st.spec.Name, e.typ(), c.now.Sub(c.start))
	at := &sparkAttempt{taskID: s.nextTask, stage: st, task: t, attempt: len(t.running), exec: e, status: "RUNNING", launch: c.now,
		locality: locality, speculative: speculative}
	for _, o := range st.attempts {
		if o.task == t && o.attempt >= at.attempt {
			at.attempt = o.attempt + 1
		}
	}
	luck := c.luckFor(appLuck(a), "stage", strconv.Itoa(st.id), strconv.Itoa(t.idx), strconv.Itoa(at.attempt))
	run := work / speed * math.Exp(c.sc.NoiseSigma*luck.NormFloat64())
	at.runMs = max(1, int64(math.Round(run*1000)))
	s.nextTask++
	if st.firstLaunch.IsZero() {
		st.firstLaunch = c.now
	}
	st.attempts = append(st.attempts, at)
	t.running = append(t.running, at)
	e.running++
	at.ev = c.schedule(c.now.Add(time.Duration(at.durationMs())*time.Millisecond), evSparkTaskDone, 0, nil)
	at.ev.app, at.ev.sat = a, at
}

// durationMs is the task's duration: deserialize + run + result
// serialization + scheduler delay (+ getting result, 0), as Spark's
// recorded tasks add up.
func (at *sparkAttempt) durationMs() int64 {
	return sparkDeserializeMs + at.runMs + sparkResultSerMs + sparkSchedulerDelayMs
}

func (c *Cluster) sparkTaskDone(a *app, at *sparkAttempt) {
	if at.status != "RUNNING" || !a.finish.IsZero() {
		return
	}
	st, t, e := at.stage, at.task, at.exec
	at.status, at.finish = "SUCCESS", c.now
	c.endSparkAttempt(at)
	e.completed++
	e.totalDurationMs += at.durationMs()
	if st.input {
		e.totalInputBytes += t.bytes
	}
	if !t.done {
		t.done = true
		st.succeeded++
	}
	for _, o := range append([]*sparkAttempt(nil), t.running...) {
		o.status, o.finish, o.errorMessage = "KILLED", c.now, "another attempt succeeded"
		c.unschedule(o.ev)
		c.endSparkAttempt(o)
		o.exec.totalDurationMs += c.now.Sub(o.launch).Milliseconds()
	}
	if st.succeeded == len(st.tasks) {
		st.done = c.now
		if st.id+1 < len(a.spark.stages) {
			c.submitStage(a, st.id+1)
		} else {
			c.finishSpark(a)
			return
		}
	}
	c.scheduleSparkTasks(a)
}

// endSparkAttempt takes a finished or killed attempt off its task and
// executor.
func (c *Cluster) endSparkAttempt(at *sparkAttempt) {
	t, e := at.task, at.exec
	for i, o := range t.running {
		if o == at {
			t.running = append(t.running[:i], t.running[i+1:]...)
			break
		}
	}
	e.running--
	if e.running == 0 {
		e.idleSince = c.now
	}
}

// unschedule drops a pending event (a killed task's end).
func (c *Cluster) unschedule(ev *event) {
	if ev != nil {
		ev.kind = evNone
	}
}

func (c *Cluster) finishSpark(a *app) {
	for _, e := range a.spark.executors {
		if e.live() {
			e.released = true
			c.release(a, e.node, a.spark.execSize)
		}
	}
	c.finishApp(a, "FINISHED", "SUCCEEDED")
}

func (c *Cluster) removeExecutor(a *app, e *executor, reason string) {
	e.remove, e.removeReason = c.now, reason
	c.release(a, e.node, a.spark.execSize)
}

// sparkTickEvent runs the driver's periodic work: dynamic allocation,
// speculation, and tasks whose locality wait ran out.
func (c *Cluster) sparkTickEvent(a *app) {
	if !a.finish.IsZero() {
		a.spark.ticking = false
		return
	}
	if a.running {
		if a.spark.spec.Dynamic != nil {
			c.dynamicAllocation(a)
		}
		if a.spark.spec.Speculation {
			c.speculateSpark(a)
		}
		c.scheduleSparkTasks(a)
	}
	ev := c.schedule(c.now.Add(sparkTick), evSparkTick, 0, nil)
	ev.app = a
}

// dynamicAllocation is ExecutorAllocationManager's schedule(): the target
// follows the backlog up (exponential ramp) and the load down; idle
// executors are released.
func (c *Cluster) dynamicAllocation(a *app) {
	s, d := a.spark, a.spark.spec.Dynamic
	pending, running := 0, 0
	if s.cur < len(s.stages) {
		st := s.stages[s.cur]
		pending = len(st.pending)
		for _, t := range st.tasks {
			running += len(t.running)
		}
	}
	need := int(math.Ceil(float64(pending+running) / float64(max(1, s.spec.ExecutorCores))))
	maxNeeded := min(max(need, d.Min), d.Max)
	if s.target > maxNeeded {
		s.target = maxNeeded
		s.rampAdd = 1
	}
	if pending > 0 {
		if s.backlogSince.IsZero() {
			s.backlogSince, s.nextRamp, s.rampAdd = c.now, c.now.Add(d.BacklogTimeout), 1
		}
		if !c.now.Before(s.nextRamp) && s.target < maxNeeded {
			s.target = min(s.target+s.rampAdd, maxNeeded)
			s.rampAdd *= 2
			s.nextRamp = c.now.Add(d.SustainedBacklogTimeout)
		}
	} else {
		s.backlogSince, s.rampAdd = time.Time{}, 1
	}
	keep := max(s.target, d.Min)
	live := s.liveExecutors()
	for _, e := range s.executors {
		if live <= keep {
			break
		}
		if e.live() && !c.now.Before(e.up) && e.running == 0 && c.now.Sub(e.idleSince) >= d.IdleTimeout {
			c.removeExecutor(a, e, fmt.Sprintf("Executor killed by driver (idle for %d seconds)", int(d.IdleTimeout.Seconds())))
			live--
		}
	}
}

// speculateSpark launches copies of the running stage's slow tasks
// (TaskSetManager.checkSpeculatableTasks with Spark's defaults).
func (c *Cluster) speculateSpark(a *app) {
	s := a.spark
	if s.cur >= len(s.stages) {
		return
	}
	st := s.stages[s.cur]
	if float64(st.succeeded) < speculationQuantile*float64(len(st.tasks)) || st.succeeded == 0 {
		return
	}
	var durs []int64
	for _, at := range st.attempts {
		if at.status == "SUCCESS" {
			durs = append(durs, at.durationMs())
		}
	}
	sort.Slice(durs, func(i, j int) bool { return durs[i] < durs[j] })
	threshold := max(speculationMultiplier*float64(durs[len(durs)/2]), 100)
	for _, t := range st.tasks {
		if t.done || len(t.running) != 1 || float64(c.now.Sub(t.running[0].launch).Milliseconds()) <= threshold {
			continue
		}
		orig := t.running[0]
		for _, e := range s.executors {
			if e.live() && !c.now.Before(e.up) && e.free() > 0 && e.node != orig.exec.node {
				c.launchSparkTask(a, st, t, e, "ANY", true)
				break
			}
		}
	}
}

// sparkExecutorsLost ends the executors on a lost node: their running
// tasks fail (ExecutorLostFailure) and are asked for again; the driver
// asks YARN for replacements (the target is unchanged).
func (c *Cluster) sparkExecutorsLost(a *app, n *node) {
	for _, e := range a.spark.executors {
		if !e.live() || e.node != n {
			continue
		}
		for _, st := range a.spark.stages {
			for _, at := range st.attempts {
				if at.exec == e && at.status == "RUNNING" {
					at.status, at.finish = "FAILED", c.now
					at.errorMessage = fmt.Sprintf("ExecutorLostFailure (executor %s exited caused by one of the running tasks) Reason: Container marked as failed", e.id)
					c.unschedule(at.ev)
					c.endSparkAttempt(at)
					e.failed++
					if !at.task.done && len(at.task.running) == 0 {
						st.pending = append(st.pending, at.task.idx)
					}
				}
			}
		}
		c.removeExecutor(a, e, "Container marked as failed: node lost")
	}
}

// sparkRunningContainers counts the app's executor containers per node
// label (for the queue views).
func (s *sparkApp) usage(out map[string]rmweb.Resource) {
	for _, e := range s.executors {
		if e.live() {
			out[e.node.label] = add(out[e.node.label], s.execSize)
		}
	}
}

// appType is the RM's applicationType: SPARK (spark.yarn.applicationType's
// default) or MAPREDUCE.
func (a *app) appType() string {
	if a.spark != nil {
		return "SPARK"
	}
	return "MAPREDUCE"
}

// progress is the RM's progress of a Spark app: the share of its tasks
// that succeeded (Spark's AM reports progress this way only roughly; the
// RM shows what the AM last reported).
func (s *sparkApp) progress() float64 {
	done, total := 0, 0
	for _, st := range s.stages {
		done += st.succeeded
		total += len(st.tasks)
	}
	if total == 0 {
		return 0
	}
	return 100 * float64(done) / float64(total)
}

// sparkResult fills a Spark app's JobResult: Maps counts its tasks (all
// stages), TaskSeconds their attempts' run (killed and failed ones
// included), WastedSeconds the killed and failed ones', FirstMap its
// first task's launch. MinTaskSeconds and MapUse stay MapReduce's.
func (c *Cluster) sparkResult(a *app, r *JobResult) {
	r.Maps, r.Reduces = 0, 0
	for _, st := range a.spark.stages {
		r.Maps += len(st.tasks)
		for _, at := range st.attempts {
			end := at.finish
			if at.status == "RUNNING" {
				end = c.now
			}
			sec := end.Sub(at.launch).Seconds()
			r.TaskSeconds += sec
			if at.status == "KILLED" || at.status == "FAILED" {
				r.WastedSeconds += sec
			}
			if r.FirstMap.IsZero() || at.launch.Before(r.FirstMap) {
				r.FirstMap = at.launch
			}
		}
	}
}
