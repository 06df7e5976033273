package sim

import (
	"math"
	"testing"
	"time"
)

func TestSparkOnlyRuns(t *testing.T) {
	sc, err := LoadScenario("spark-only")
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewCluster(sc, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !c.RunUntilDone(12 * time.Hour) {
		t.Fatal("not every app finished in 12 virtual hours")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var killed, speculative, gpuTasks int
	for _, a := range c.apps {
		if a.spark == nil || a.state != "FINISHED" || a.containers != 0 {
			t.Fatalf("%s: spark %v state %s containers %d", a.id, a.spark != nil, a.state, a.containers)
		}
		for _, st := range a.spark.stages {
			if st.succeeded != len(st.tasks) || st.done.IsZero() {
				t.Errorf("%s stage %d: %d/%d succeeded", a.id, st.id, st.succeeded, len(st.tasks))
			}
			for _, at := range st.attempts {
				switch at.status {
				case "KILLED":
					killed++
				case "SUCCESS":
					// executorRunTime = work / speed × noise: within
					// 4 sigma of the truth.
					work := st.spec.TaskSeconds
					if st.input {
						work *= float64(at.task.bytes) / float64(sc.BlockSizeMB<<20)
					}
					truth := work / sc.SparkSpeed(a.class, st.spec.Name, at.exec.typ(), 0) * 1000
					if r := float64(at.runMs) / truth; math.Abs(math.Log(r)) > 4*sc.NoiseSigma+0.01 {
						t.Errorf("%s task %d: run %d ms, truth %.0f", a.id, at.taskID, at.runMs, truth)
					}
				}
				if at.speculative {
					speculative++
				}
				if at.exec.gpus > 0 {
					gpuTasks++
					if at.exec.node.typ != "gpu" {
						t.Errorf("GPU executor on %s", at.exec.node.typ)
					}
				}
			}
		}
	}
	if gpuTasks == 0 {
		t.Error("no task ran on a GPU executor")
	}
	t.Logf("apps %d, speculative attempts %d, killed %d, GPU tasks %d", len(c.apps), speculative, killed, gpuTasks)
}

func TestSparkDynamicAllocationAndSpeculation(t *testing.T) {
	sc, err := LoadScenario("spark-only")
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewCluster(sc, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !c.RunUntilDone(12 * time.Hour) {
		t.Fatal("not every app finished")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var ramped, idleRemoved, static int
	for _, a := range c.apps {
		s := a.spark
		switch a.class {
		case "etl":
			if len(s.executors) > s.spec.Dynamic.Initial {
				ramped++
			}
			if len(s.executors) > s.spec.Dynamic.Max {
				t.Errorf("%s: %d executors, max %d", a.id, len(s.executors), s.spec.Dynamic.Max)
			}
			for _, e := range s.executors {
				if !e.remove.IsZero() {
					if e.remove.Sub(e.idleSince) < s.spec.Dynamic.IdleTimeout {
						t.Errorf("%s executor %s removed %v after going idle", a.id, e.id, e.remove.Sub(e.idleSince))
					}
					idleRemoved++
				}
			}
		default:
			if len(s.executors) != s.spec.Executors {
				t.Errorf("%s (%s, static): %d executors, want %d", a.id, a.class, len(s.executors), s.spec.Executors)
			}
			static++
		}
	}
	if ramped == 0 || idleRemoved == 0 || static == 0 {
		t.Errorf("etl apps ramped %d, idle executors removed %d, static apps %d: want each > 0", ramped, idleRemoved, static)
	}
}

// A stage with one slow task (its executor on a node 10x slower) gets a
// speculative copy that wins; the original is KILLED.
func TestSparkSpeculation(t *testing.T) {
	sc, err := ParseScenario([]byte(`
name: spec
noise_sigma: 0
node_types:
  - {name: fast, count: 1, memory_mb: 6144, vcores: 8}
  - {name: slow, count: 1, memory_mb: 6144, vcores: 8}
classes:
  - name: s
    speed: {slow: 0.1}
    spark:
      executors: 2
      executor_cores: 4
      speculation: true
      locality_wait: 1s
      stages: [{name: "count at T.scala:1", task_seconds: 10}]
conf:
  yarn.scheduler.capacity.root.queues: "default"
  yarn.scheduler.capacity.root.default.capacity: "100"
  yarn.scheduler.capacity.maximum-am-resource-percent: "0.5"
jobs:
  - {at: 0s, class: s, queue: default, maps: 16}
`), "spec")
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewCluster(sc, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !c.RunUntilDone(time.Hour) {
		t.Fatal("not finished")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.apps[0].spark.stages[0]
	var spec, killed int
	for _, at := range st.attempts {
		if at.speculative && at.status == "SUCCESS" {
			spec++
		}
		if at.status == "KILLED" {
			killed++
			if at.errorMessage != "another attempt succeeded" || at.speculative {
				t.Errorf("killed attempt %+v", at)
			}
		}
	}
	if spec == 0 || killed != spec {
		t.Errorf("speculative winners %d, killed originals %d: want > 0 and equal", spec, killed)
	}
}

// spark-mixed runs Spark apps beside MapReduce jobs to the end; ml's
// executors hold GPUs on gpu nodes only, and the RM shows SPARK apps.
func TestSparkMixedRuns(t *testing.T) {
	sc, err := LoadScenario("spark-mixed")
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewCluster(sc, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !c.RunUntilDone(24 * time.Hour) {
		t.Fatal("not every app finished in 24 virtual hours")
	}
	types := map[string]int{}
	for _, a := range c.Apps() {
		types[a.ApplicationType]++
		if a.State != "FINISHED" {
			t.Errorf("%s: %s", a.ID, a.State)
		}
	}
	if types["SPARK"] != 85 || types["MAPREDUCE"] != 100 {
		t.Errorf("app types %v, want 85 SPARK and 100 MAPREDUCE", types)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, a := range c.apps {
		if a.spark == nil {
			continue
		}
		for _, e := range a.spark.executors {
			if e.gpus > 0 && (a.class != "ml" || e.node.typ != "gpu") {
				t.Errorf("%s (%s) executor %s on %s with %d GPUs", a.id, a.class, e.id, e.node.typ, e.gpus)
			}
		}
	}
}
