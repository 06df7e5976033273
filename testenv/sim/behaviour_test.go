package sim

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// small is a three-node cluster: two CPU nodes in the default partition and
// one GPU node in the `gpu` partition (exclusivity set per test), queues a
// and b, and the jobs each test adds.
func small(t *testing.T, exclusive bool, conf string, jobs string) *Cluster {
	t.Helper()
	ex := "false"
	if exclusive {
		ex = "true"
	}
	y := `name: small
seed: 1
max_app_priority: 10
noise_sigma: 0.05
racks: 1
labels:
  - {name: gpu, exclusive: ` + ex + `}
node_types:
  - {name: cpu, count: 2, memory_mb: 8192, vcores: 4}
  - {name: gpu, count: 1, memory_mb: 8192, vcores: 4, gpus: 2, label: gpu}
classes:
  - {name: c, map_seconds: 60, shuffle_seconds: 5, reduce_seconds: 5, map_memory_mb: 2048, speed: {gpu: 2.0}}
conf:
  yarn.scheduler.capacity.maximum-am-resource-percent: "1.0"
  yarn.scheduler.capacity.node-locality-delay: "0"
  yarn.scheduler.capacity.root.queues: a,b
  yarn.scheduler.capacity.root.accessible-node-labels: "*"
  yarn.scheduler.capacity.root.accessible-node-labels.gpu.capacity: "100"
  yarn.scheduler.capacity.root.a.accessible-node-labels: gpu
  yarn.scheduler.capacity.root.a.accessible-node-labels.gpu.capacity: "50"
  yarn.scheduler.capacity.root.b.accessible-node-labels: gpu
  yarn.scheduler.capacity.root.b.accessible-node-labels.gpu.capacity: "50"
` + conf + `jobs:
` + jobs
	sc, err := ParseScenario([]byte(y), "small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewCluster(sc, 1)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

const equalQueues = `  yarn.scheduler.capacity.root.a.capacity: "50"
  yarn.scheduler.capacity.root.a.maximum-capacity: "100"
  yarn.scheduler.capacity.root.b.capacity: "50"
  yarn.scheduler.capacity.root.b.maximum-capacity: "100"
`

// watch steps the cluster in 10 s increments until every job finished,
// calling f after each step.
func watch(t *testing.T, c *Cluster, f func()) {
	t.Helper()
	deadline := c.Now().Add(24 * time.Hour)
	for !c.Done() {
		if c.Now().After(deadline) {
			t.Fatal("jobs did not finish in 24h of virtual time")
		}
		c.Step(10 * time.Second)
		f()
	}
}

func TestDeterminism(t *testing.T) {
	a := run(t, "lee-gpu", 4, nil)
	b := run(t, "lee-gpu", 4, nil)
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("same seed, different runs:\n%v\n%v", a, b)
	}
	c := run(t, "lee-gpu", 5, nil)
	if reflect.DeepEqual(durations(a), durations(c)) {
		t.Fatalf("seeds 4 and 5 gave identical job times %v: the seed drives nothing", durations(a))
	}
}

func durations(rs []JobResult) []time.Duration {
	var out []time.Duration
	for _, r := range rs {
		out = append(out, r.Duration())
	}
	return out
}

// Exclusive partitions serve only requests that name them; idle
// non-exclusive ones are lent to default-partition requests (NodeLabel.md).
func TestPartitionExclusivity(t *testing.T) {
	const job = "  - {at: 10s, name: j, class: c, queue: a, maps: 60, reduces: 0}\n"
	for _, exclusive := range []bool{true, false} {
		c := small(t, exclusive, equalQueues, job)
		onGPU := 0
		watch(t, c, func() {
			for _, m := range c.ContainersByType() {
				onGPU += m["gpu"]
			}
		})
		if exclusive && onGPU > 0 {
			t.Errorf("exclusive gpu partition ran %d default-partition containers", onGPU)
		}
		if !exclusive && onGPU == 0 {
			t.Errorf("idle non-exclusive gpu partition was never lent to the default partition")
		}
	}
}

// A default-partition request takes a non-exclusive partition's idle node
// only after missing as many scheduling opportunities as the cluster has
// nodes since its last container in the default partition
// (RegularContainerAllocator.preCheckForNodeCandidateSet, doAllocation);
// requests naming the node's partition are not held back.
func TestNonPartitionedFirst(t *testing.T) {
	c := &Cluster{schedNodes: 3}
	def, gpu := &node{label: ""}, &node{label: "gpu"}
	cases := []struct {
		name     string
		n        *node
		borrowed bool
		want     bool
		count    int
	}{
		{"a default node: taken, counted", def, false, true, 1},
		{"a lent node, 2 missed: skipped", gpu, true, false, 2},
		{"a lent node, 3 missed (the node count): taken", gpu, true, true, 3},
		{"the node's own partition's request: not counted", gpu, false, true, 3},
		{"a lent node again: still past the count", gpu, true, true, 4},
	}
	a := &app{}
	for _, k := range cases {
		if got := c.nonPartitionedFirst(a, k.n, k.borrowed); got != k.want || a.missedNonPartitioned != k.count {
			t.Errorf("%s: %v with %d missed, want %v with %d", k.name, got, a.missedNonPartitioned, k.want, k.count)
		}
	}
}

// No AM runs on a node lent from a non-exclusive partition: the RM does not
// place AMs in IGNORE_PARTITION_EXCLUSIVITY mode.
func TestNoAMOnALentNode(t *testing.T) {
	var jobs strings.Builder
	for i := 0; i < 8; i++ {
		jobs.WriteString("  - {at: " + time.Duration(10+i).String() + ", name: j" + string(rune('a'+i)) + ", class: c, queue: a, maps: 12, reduces: 0}\n")
	}
	c := small(t, false, equalQueues, jobs.String())
	lent := 0
	watch(t, c, func() {
		for _, a := range c.apps {
			if a.amNode != nil && a.amNode.label != "" {
				t.Fatalf("app %s's AM runs on %s (partition %s)", a.name, a.amNode.host, a.amNode.label)
			}
		}
		for _, m := range c.ContainersByType() {
			lent += m["gpu"]
		}
	})
	if lent == 0 {
		t.Error("the idle gpu partition was never lent: the test shows nothing")
	}
}

// A lone queue grows past its capacity up to its maximum-capacity, never
// beyond (elasticity, CapacityScheduler.md).
func TestElasticityUpToMaximumCapacity(t *testing.T) {
	conf := `  yarn.scheduler.capacity.root.a.capacity: "25"
  yarn.scheduler.capacity.root.a.maximum-capacity: "75"
  yarn.scheduler.capacity.root.b.capacity: "75"
  yarn.scheduler.capacity.root.b.maximum-capacity: "100"
`
	c := small(t, true, conf, "  - {at: 10s, name: j, class: c, queue: a, maps: 200, reduces: 0}\n")
	total := c.PartitionTotals()[""].MemoryMB
	peak := int64(0)
	watch(t, c, func() {
		if u := c.QueueRuntime("root.a").ByPartition[""].Used.MemoryMB; u > peak {
			peak = u
		}
	})
	share := float64(peak) / float64(total)
	if share <= 0.25 {
		t.Errorf("queue a never grew past its 25%% capacity (peak %.0f%%)", 100*share)
	}
	if share > 0.75+1e-9 {
		t.Errorf("queue a used %.0f%% of the partition, above its 75%% maximum-capacity", 100*share)
	}
}

// Within a leaf, a higher-priority app is served first even when it came later.
func TestPriorityOrdering(t *testing.T) {
	jobs := `  - {at: 10s, name: low, class: c, queue: a, maps: 80, reduces: 0, priority: 0}
  - {at: 20s, name: high, class: c, queue: a, maps: 80, reduces: 0, priority: 5}
`
	c := small(t, true, equalQueues, jobs)
	if !c.RunUntilDone(24 * time.Hour) {
		t.Fatal("did not finish")
	}
	got := map[string]JobResult{}
	for _, r := range c.Results() {
		got[r.Name] = r
	}
	if !got["high"].Finish.Before(got["low"].Finish) {
		t.Fatalf("priority 5 app finished at %s, after the priority 0 app (%s)", got["high"].Finish, got["low"].Finish)
	}
}

// With node-locality-delay, maps wait for a node holding their block; with
// 0 they take any node at once. Compute-only nodes hold no blocks.
func TestLocalityDelay(t *testing.T) {
	share := func(delay string) float64 {
		sc, err := LoadScenario("hetero-100")
		if err != nil {
			t.Fatal(err)
		}
		cp := *sc
		cp.Conf = map[string]string{}
		for k, v := range sc.Conf {
			cp.Conf[k] = v
		}
		cp.Conf["yarn.scheduler.capacity.node-locality-delay"] = delay
		cp.Generators = nil
		cp.Jobs = []JobSpec{{At: time.Second, Name: "scan", Class: "sort", Queue: "etl", Maps: 400, Reduces: 1, Repeat: 1, User: "etl"}}
		c, err := NewCluster(&cp, 2)
		if err != nil {
			t.Fatal(err)
		}
		if !c.RunUntilDone(24 * time.Hour) {
			t.Fatal("did not finish")
		}
		j, ok := c.Job(c.Results()[0].AppID)
		if !ok {
			t.Fatal("no job view")
		}
		return float64(j.Counters["DATA_LOCAL_MAPS"]) / float64(j.Counters["TOTAL_LAUNCHED_MAPS"])
	}
	withDelay, without := share("40"), share("0")
	if withDelay < 0.9 {
		t.Errorf("with node-locality-delay 40 only %.0f%% of maps were node-local", 100*withDelay)
	}
	if without >= withDelay {
		t.Errorf("delay 0 gave %.0f%% node-local maps, not fewer than delay 40's %.0f%%", 100*without, 100*withDelay)
	}
}

// A node that is LOST takes its running attempts with it; the tasks run
// again elsewhere and the job still finishes. The RM reports the state.
func TestLostNodeAttemptsRerun(t *testing.T) {
	c := small(t, true, equalQueues, "  - {at: 10s, name: j, class: c, queue: a, maps: 40, reduces: 1}\n")
	c.Step(2 * time.Minute)
	am := c.Apps()[0].AMNodeID // losing the AM's node fails the attempt: not this test
	var victim string
	for _, n := range c.Nodes() {
		if n.Used.MemoryMB > 0 && n.ID != am {
			victim = n.ID
		}
	}
	if victim == "" {
		t.Fatal("no busy node to lose")
	}
	if err := c.SetNodeState(victim, "LOST"); err != nil {
		t.Fatal(err)
	}
	if !c.RunUntilDone(24 * time.Hour) {
		t.Fatal("job did not finish after losing a node")
	}
	states := map[string]string{}
	for _, n := range c.Nodes() {
		states[n.ID] = n.State
	}
	if states[victim] != "LOST" {
		t.Fatalf("node %s reported %s, want LOST", victim, states[victim])
	}
	r := c.Results()[0]
	if r.State != "FINISHED" {
		t.Fatalf("job state %s", r.State)
	}
	j, _ := c.Job(r.AppID)
	failed := 0
	for _, task := range j.Tasks {
		for _, at := range task.Attempts {
			if at.State != "SUCCEEDED" {
				failed++
			}
		}
	}
	if failed == 0 {
		t.Fatal("no attempt was lost with the node")
	}
}

func TestScenarioErrorsNameTheLine(t *testing.T) {
	cases := map[string]string{
		"name: x\nnode_typez: []\n":                      "line 2",
		"name: x\nnode_types:\n  - {name: a, count: -1}": "count",
	}
	for y, want := range cases {
		_, err := ParseScenario([]byte(y), "bad.yaml")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseScenario(%q) = %v, want an error mentioning %q", y, err, want)
		}
	}
}

// A luck seed keeps the jobs (arrivals, sizes: drawn first from the run
// seed) and redraws the rest: the same configuration on the same jobs
// with other luck, the harm figures' noise floor (testenv/bench heldout).
func TestLuckSeedKeepsTheJobs(t *testing.T) {
	withLuck := func(luck int64) func(*Scenario) {
		return func(sc *Scenario) { sc.LuckSeed = luck }
	}
	runLuck := func(luck int64) []JobResult {
		return runHetero100(t, withLuck(luck)).Results()
	}
	plain, a, again := runLuck(0), runLuck(11), runLuck(11)
	if !reflect.DeepEqual(a, again) {
		t.Fatal("same luck seed, different runs")
	}
	jobs := func(rs []JobResult) map[string][2]any {
		out := map[string][2]any{}
		for _, r := range rs {
			out[r.Name] = [2]any{r.Submit, r.Maps}
		}
		return out
	}
	if !reflect.DeepEqual(jobs(plain), jobs(a)) {
		t.Fatal("another luck seed changed the jobs (arrivals or sizes)")
	}
	if reflect.DeepEqual(durations(plain), durations(a)) {
		t.Fatal("another luck seed gave identical job times: it drives nothing")
	}
}

// Common random numbers: a task attempt's time noise and a job's replica
// placement are keyed by what they are for, so a run under another
// configuration draws the same luck for the same task (testenv/sim
// luck.go). Before, one shared stream made the first container placed
// otherwise shift every later draw.
func TestSameLuckForTheSameTask(t *testing.T) {
	runWith := func(m *schedconf.Mutation) *Cluster {
		sc, err := LoadScenario("hetero-100")
		if err != nil {
			t.Fatal(err)
		}
		c, err := NewCluster(sc, 3)
		if err != nil {
			t.Fatal(err)
		}
		if m != nil {
			if _, err := c.MutateConf(*m, false); err != nil {
				t.Fatal(err)
			}
		}
		if !c.RunUntilDone(24 * time.Hour) {
			t.Fatal("hetero-100 did not finish in 24h of virtual time")
		}
		return c
	}
	stock := runWith(nil)
	routed := runWith(&schedconf.Mutation{UpdateQueue: []schedconf.QueueUpdate{
		{Queue: "root.adhoc", Params: map[string]string{"default-node-label-expression": "gpu"}},
	}})
	type key struct {
		app string
		idx int
	}
	byTask := func(c *Cluster) map[key]*task {
		out := map[key]*task{}
		for _, a := range c.apps {
			for _, tk := range a.maps {
				out[key{a.name, tk.idx}] = tk
			}
		}
		return out
	}
	a, b := byTask(stock), byTask(routed)
	if len(a) == 0 || len(a) != len(b) {
		t.Fatalf("map tasks: %d stock, %d routed", len(a), len(b))
	}
	same, moved := 0, 0
	for k, ta := range a {
		tb := b[k]
		if !reflect.DeepEqual(ta.hosts, tb.hosts) {
			t.Fatalf("%s map %d: replicas on %v under stock, %v routed", k.app, k.idx, ta.hosts, tb.hosts)
		}
		x, y := ta.attempts[0], tb.attempts[0]
		if x.node.typ != y.node.typ {
			moved++
			continue
		}
		if x.cpu != y.cpu {
			t.Fatalf("%s map %d on %s both times: %s of work under stock, %s routed", k.app, k.idx, x.node.typ, x.cpu, y.cpu)
		}
		same++
	}
	if moved == 0 || same == 0 {
		t.Fatalf("the route moved %d first attempts to another node type and left %d: the case tests nothing", moved, same)
	}
}

// Another heartbeat order on the same luck keeps the jobs and each task's
// luck and changes only where containers land first: the held-out bench's
// chance-alone run (testenv/bench heldout.go).
func TestHeartbeatOffsetOnlyReorders(t *testing.T) {
	runOffset := func(off int) []JobResult {
		return runHetero100(t, func(sc *Scenario) { sc.HeartbeatOffset = off }).Results()
	}
	plain, shifted := runOffset(0), runOffset(1)
	if len(plain) != len(shifted) {
		t.Fatalf("%d jobs, %d with the order shifted", len(plain), len(shifted))
	}
	for i := range plain {
		if plain[i].Name != shifted[i].Name || !plain[i].Submit.Equal(shifted[i].Submit) || plain[i].Maps != shifted[i].Maps {
			t.Fatalf("job %d: %s at %s with %d maps, shifted %s at %s with %d", i, plain[i].Name, plain[i].Submit, plain[i].Maps,
				shifted[i].Name, shifted[i].Submit, shifted[i].Maps)
		}
	}
	if reflect.DeepEqual(durations(plain), durations(shifted)) {
		t.Fatal("another heartbeat order gave identical job times: it changes nothing")
	}
}

// runHetero100 runs hetero-100 on run seed 3 to its end, edit applied to
// the scenario first.
func runHetero100(t *testing.T, edit func(*Scenario)) *Cluster {
	t.Helper()
	sc, err := LoadScenario("hetero-100")
	if err != nil {
		t.Fatal(err)
	}
	edit(sc)
	c, err := NewCluster(sc, 3)
	if err != nil {
		t.Fatal(err)
	}
	if !c.RunUntilDone(24 * time.Hour) {
		t.Fatal("hetero-100 did not finish in 24h of virtual time")
	}
	return c
}
