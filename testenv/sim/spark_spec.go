package sim

import (
	"fmt"
	"time"
)

// Spark applications on the mini cluster (issue 36): a scenario class with
// a spark: block runs as a Spark-on-YARN application instead of a
// MapReduce job. See spark.go for what is modelled.

// SparkClassSpec makes a class a Spark application's.
type SparkClassSpec struct {
	// ExecutorMemoryMB is the executor container (spark.executor.memory
	// plus its overhead; default 4096), ExecutorCores its cores
	// (spark.executor.cores, default 4; one task per core,
	// spark.task.cpus=1), ExecutorGPUs its yarn.io/gpu
	// (spark.executor.resource.gpu.amount).
	ExecutorMemoryMB int64 `yaml:"executor_memory_mb"`
	ExecutorCores    int64 `yaml:"executor_cores"`
	ExecutorGPUs     int64 `yaml:"executor_gpus"`
	// GPUShare, when set, is the share of the class's apps that ask for
	// ExecutorGPUs (the others run CPU executors: the same job with its
	// GPU plugin off); 0 means all of them.
	GPUShare float64 `yaml:"gpu_share"`
	// Executors is spark.executor.instances (static allocation; default 2).
	Executors int `yaml:"executors"`
	// Dynamic switches spark.dynamicAllocation.enabled on.
	Dynamic *DynamicAllocationSpec `yaml:"dynamic_allocation"`
	// LocalityWait is spark.locality.wait (default 3 s): how long a stage
	// whose tasks prefer hosts waits for a core there before it launches
	// tasks anywhere.
	LocalityWait time.Duration `yaml:"locality_wait"`
	// Speculation is spark.speculation (default false).
	Speculation bool `yaml:"speculation"`
	// Stages run one after another (each stage's tasks after the last
	// one's finished); the first reads the job's HDFS input, one task
	// per block, and prefers its replicas' hosts.
	Stages []SparkStageSpec `yaml:"stages"`
	// GPUSpeed is the speed on a node type of an executor holding GPUs
	// (default: the class's speed there): a GPU executor is its own
	// node type (ExecutorType).
	GPUSpeed map[string]float64 `yaml:"gpu_speed"`
}

// DynamicAllocationSpec is spark.dynamicAllocation.*.
type DynamicAllocationSpec struct {
	Min     int `yaml:"min_executors"`     // default 0
	Max     int `yaml:"max_executors"`     // default 20 (Spark: infinity)
	Initial int `yaml:"initial_executors"` // default Min
	// IdleTimeout is executorIdleTimeout (default 60 s), BacklogTimeout
	// schedulerBacklogTimeout (1 s), SustainedBacklogTimeout
	// sustainedSchedulerBacklogTimeout (default BacklogTimeout).
	IdleTimeout             time.Duration `yaml:"idle_timeout"`
	BacklogTimeout          time.Duration `yaml:"backlog_timeout"`
	SustainedBacklogTimeout time.Duration `yaml:"sustained_backlog_timeout"`
}

// SparkStageSpec is one stage of the class's applications.
type SparkStageSpec struct {
	// Name is the stage's name as Spark shows it ("count at App.scala:42"):
	// the same code gives the same name in every run of the class.
	Name string `yaml:"name"`
	// TaskSeconds is one task's work at speed 1 (for the input stage, a
	// full block's).
	TaskSeconds float64 `yaml:"task_seconds"`
	// Tasks is the stage's tasks per input block (default 1; later stages
	// at least 1 task).
	Tasks float64 `yaml:"tasks"`
	// Speed overrides the class's speed per node type for this stage.
	Speed map[string]float64 `yaml:"speed"`
}

// ExecutorType is the node type a Spark executor's tasks run at: the
// node's type, or "<type>/gpu" for an executor holding GPUs (a GPU
// executor on a GPU node is its own type: issue 36).
func ExecutorType(nodeType string, gpus int64) string {
	if gpus > 0 {
		return nodeType + "/gpu"
	}
	return nodeType
}

// SparkStageClass is the calibration class of a Spark stage: the app's
// class and the stage's name (issue 36: a Spark app's stages are
// different kinds of work; a stage's name is its call site, the same in
// every run of the same code, where its position would shift when a run
// skips a stage).
func SparkStageClass(class, stage string) string { return class + "/" + stage }

func (s *SparkClassSpec) defaults() {
	if s.ExecutorMemoryMB == 0 {
		s.ExecutorMemoryMB = 4096
	}
	if s.ExecutorCores == 0 {
		s.ExecutorCores = 4
	}
	if s.Executors == 0 {
		s.Executors = 2
	}
	if s.LocalityWait == 0 {
		s.LocalityWait = 3 * time.Second
	}
	if d := s.Dynamic; d != nil {
		if d.Max == 0 {
			d.Max = 20
		}
		if d.Initial == 0 {
			d.Initial = d.Min
		}
		if d.IdleTimeout == 0 {
			d.IdleTimeout = 60 * time.Second
		}
		if d.BacklogTimeout == 0 {
			d.BacklogTimeout = time.Second
		}
		if d.SustainedBacklogTimeout == 0 {
			d.SustainedBacklogTimeout = d.BacklogTimeout
		}
	}
	for i := range s.Stages {
		if s.Stages[i].Tasks == 0 {
			s.Stages[i].Tasks = 1
		}
	}
}

func (s *SparkClassSpec) validate(i int, types map[string]bool) []string {
	var bad []string
	at := fmt.Sprintf("classes[%d].spark", i)
	if len(s.Stages) == 0 {
		bad = append(bad, at+".stages: at least one")
	}
	for k, st := range s.Stages {
		if st.Name == "" || st.TaskSeconds <= 0 || st.Tasks < 0 {
			bad = append(bad, fmt.Sprintf("%s.stages[%d]: needs name, task_seconds > 0, tasks >= 0", at, k))
		}
		for t := range st.Speed {
			if !types[t] {
				bad = append(bad, fmt.Sprintf("%s.stages[%d].speed: unknown node type %q", at, k, t))
			}
		}
	}
	for t := range s.GPUSpeed {
		if !types[t] {
			bad = append(bad, fmt.Sprintf("%s.gpu_speed: unknown node type %q", at, t))
		}
	}
	if s.GPUShare < 0 || s.GPUShare > 1 {
		bad = append(bad, at+".gpu_share: want 0..1")
	}
	if s.ExecutorMemoryMB < 0 || s.ExecutorCores < 0 || s.ExecutorGPUs < 0 || s.Executors < 0 {
		bad = append(bad, at+": executor sizes and count must be >= 0")
	}
	if d := s.Dynamic; d != nil && (d.Min < 0 || d.Max < d.Min || d.Initial < d.Min || d.Initial > d.Max) {
		bad = append(bad, at+".dynamic_allocation: needs 0 <= min_executors <= initial_executors <= max_executors")
	}
	return bad
}

// SparkSpeed is the true speed of a Spark stage's tasks on an executor
// type (ExecutorType): the stage's speed for the node type, else the
// class's; for a GPU executor the class's gpu_speed first.
func (sc *Scenario) SparkSpeed(class, stage, execType string, since time.Duration) float64 {
	cls, ok := sc.Class(class)
	if !ok || cls.Spark == nil {
		return 1
	}
	nodeType, gpu := execType, false
	if n := len(execType) - len("/gpu"); n > 0 && execType[n:] == "/gpu" {
		nodeType, gpu = execType[:n], true
	}
	if gpu {
		if s, ok := cls.Spark.GPUSpeed[nodeType]; ok && s > 0 {
			return s
		}
	}
	for _, st := range cls.Spark.Stages {
		if st.Name == stage {
			if s, ok := st.Speed[nodeType]; ok && s > 0 {
				return s
			}
		}
	}
	return sc.SpeedAt(nodeType, class, since)
}
