package spark

import (
	"net"
	"strconv"
	"time"
)

// The views below keep the fields the sidecar reads, with Spark's names
// and units (see the package comment); unknown fields are ignored, since
// Spark adds fields to v1 over versions and never removes them.

// Application is one element of /applications, or /applications/<id>.
type Application struct {
	ID       string       `json:"id"`
	Name     string       `json:"name"`
	Attempts []AppAttempt `json:"attempts"`
}

// AppAttempt is one attempt of an application, newest first. AttemptID is
// "" for a single-attempt app (the key is absent) and a string ("1", "2")
// for a YARN cluster-mode app's attempts.
type AppAttempt struct {
	AttemptID        string `json:"attemptId,omitempty"`
	StartTime        Time   `json:"startTime"`
	EndTime          Time   `json:"endTime"`
	LastUpdated      Time   `json:"lastUpdated"`
	Duration         int64  `json:"duration"` // ms
	SparkUser        string `json:"sparkUser"`
	Completed        bool   `json:"completed"`
	AppSparkVersion  string `json:"appSparkVersion"`
	StartTimeEpoch   int64  `json:"startTimeEpoch"` // ms since the epoch
	EndTimeEpoch     int64  `json:"endTimeEpoch"`
	LastUpdatedEpoch int64  `json:"lastUpdatedEpoch"`
}

// Job is one element of /jobs.
type Job struct {
	JobID               int            `json:"jobId"`
	Name                string         `json:"name"`
	Description         string         `json:"description,omitempty"`
	SubmissionTime      Time           `json:"submissionTime"`
	CompletionTime      Time           `json:"completionTime"`
	StageIDs            []int          `json:"stageIds"`
	JobGroup            string         `json:"jobGroup,omitempty"`
	JobTags             []string       `json:"jobTags"`
	Status              string         `json:"status"` // RUNNING, SUCCEEDED, FAILED, UNKNOWN
	NumTasks            int            `json:"numTasks"`
	NumActiveTasks      int            `json:"numActiveTasks"`
	NumCompletedTasks   int            `json:"numCompletedTasks"`
	NumSkippedTasks     int            `json:"numSkippedTasks"`
	NumFailedTasks      int            `json:"numFailedTasks"`
	NumKilledTasks      int            `json:"numKilledTasks"`
	NumCompletedIndices int            `json:"numCompletedIndices"`
	NumActiveStages     int            `json:"numActiveStages"`
	NumCompletedStages  int            `json:"numCompletedStages"`
	NumSkippedStages    int            `json:"numSkippedStages"`
	NumFailedStages     int            `json:"numFailedStages"`
	KilledTasksSummary  map[string]int `json:"killedTasksSummary"`
}

// Executor is one element of /executors (active) or /allexecutors. ID is
// "driver" for the driver. On YARN, Attributes carry the container
// (CONTAINER_ID) and its NodeManager (NM_HOST, NM_PORT, NM_HTTP_ADDRESS).
type Executor struct {
	ID                string                  `json:"id"`
	HostPort          string                  `json:"hostPort"`
	IsActive          bool                    `json:"isActive"`
	RDDBlocks         int                     `json:"rddBlocks"`
	MemoryUsed        int64                   `json:"memoryUsed"`
	DiskUsed          int64                   `json:"diskUsed"`
	TotalCores        int                     `json:"totalCores"`
	MaxTasks          int                     `json:"maxTasks"`
	ActiveTasks       int                     `json:"activeTasks"`
	FailedTasks       int                     `json:"failedTasks"`
	CompletedTasks    int                     `json:"completedTasks"`
	TotalTasks        int                     `json:"totalTasks"`
	TotalDuration     int64                   `json:"totalDuration"` // ms
	TotalGCTime       int64                   `json:"totalGCTime"`   // ms
	TotalInputBytes   int64                   `json:"totalInputBytes"`
	TotalShuffleRead  int64                   `json:"totalShuffleRead"`
	TotalShuffleWrite int64                   `json:"totalShuffleWrite"`
	IsBlacklisted     bool                    `json:"isBlacklisted"`
	IsExcluded        bool                    `json:"isExcluded"`
	MaxMemory         int64                   `json:"maxMemory"`
	AddTime           Time                    `json:"addTime"`
	RemoveTime        Time                    `json:"removeTime"`
	RemoveReason      string                  `json:"removeReason,omitempty"`
	ExecutorLogs      map[string]string       `json:"executorLogs"`
	Attributes        map[string]string       `json:"attributes"`
	Resources         map[string]ResourceInfo `json:"resources"`
	ResourceProfileID int                     `json:"resourceProfileId"`
	// PeakMemoryMetrics' key set differs by Spark version.
	PeakMemoryMetrics map[string]int64 `json:"peakMemoryMetrics,omitempty"`
}

// ResourceInfo is an executor's custom resource ("gpu") with the addresses
// its discovery script found (strings: "0", "1", ...).
type ResourceInfo struct {
	Name      string   `json:"name"`
	Addresses []string `json:"addresses"`
}

// Host is the executor's host: the NodeManager host (NM_HOST) on YARN,
// else hostPort's host. Tasks name the same host (task.host).
func (e Executor) Host() string {
	if h := e.Attributes["NM_HOST"]; h != "" {
		return h
	}
	if h, _, err := net.SplitHostPort(e.HostPort); err == nil {
		return h
	}
	return e.HostPort
}

// ContainerID is the executor's YARN container ("" outside YARN).
func (e Executor) ContainerID() string { return e.Attributes["CONTAINER_ID"] }

// GPUs is how many GPU addresses the executor was given
// (spark.executor.resource.gpu.amount): 0 for a CPU executor.
func (e Executor) GPUs() int { return len(e.Resources["gpu"].Addresses) }

// IsDriver reports the driver's entry (it runs no tasks on YARN cluster
// mode's executors' hosts and is no executor container).
func (e Executor) IsDriver() bool { return e.ID == "driver" }

// Stage is one element of /stages, or a stage attempt
// (/stages/<id>/<attempt>) without its tasks, which the client streams.
type Stage struct {
	Status                  string         `json:"status"` // ACTIVE, COMPLETE, PENDING, FAILED, SKIPPED
	StageID                 int            `json:"stageId"`
	AttemptID               int            `json:"attemptId"`
	NumTasks                int            `json:"numTasks"`
	NumActiveTasks          int            `json:"numActiveTasks"`
	NumCompleteTasks        int            `json:"numCompleteTasks"`
	NumFailedTasks          int            `json:"numFailedTasks"`
	NumKilledTasks          int            `json:"numKilledTasks"`
	NumCompletedIndices     int            `json:"numCompletedIndices"`
	SubmissionTime          Time           `json:"submissionTime"`
	FirstTaskLaunchedTime   Time           `json:"firstTaskLaunchedTime"`
	CompletionTime          Time           `json:"completionTime"`
	FailureReason           string         `json:"failureReason,omitempty"`
	ExecutorDeserializeTime int64          `json:"executorDeserializeTime"` // ms
	ExecutorRunTime         int64          `json:"executorRunTime"`         // ms
	ExecutorCPUTime         int64          `json:"executorCpuTime"`         // ns
	JVMGCTime               int64          `json:"jvmGcTime"`               // ms
	InputBytes              int64          `json:"inputBytes"`
	InputRecords            int64          `json:"inputRecords"`
	OutputBytes             int64          `json:"outputBytes"`
	ShuffleReadBytes        int64          `json:"shuffleReadBytes"`
	ShuffleWriteBytes       int64          `json:"shuffleWriteBytes"`
	ShuffleWriteTime        int64          `json:"shuffleWriteTime"` // ns
	Name                    string         `json:"name"`
	Description             string         `json:"description,omitempty"`
	Details                 string         `json:"details"`
	SchedulingPool          string         `json:"schedulingPool"`
	RDDIDs                  []int          `json:"rddIds"`
	KilledTasksSummary      map[string]int `json:"killedTasksSummary"`
	ResourceProfileID       int            `json:"resourceProfileId"`
	// SpeculationSummary is present on stage attempts that speculated.
	SpeculationSummary *SpeculationSummary `json:"speculationSummary,omitempty"`
	// ExecutorSummary is a stage attempt's per-executor totals, keyed by
	// executor id.
	ExecutorSummary     map[string]ExecutorStageSummary `json:"executorSummary,omitempty"`
	PeakExecutorMetrics map[string]int64                `json:"peakExecutorMetrics,omitempty"`
}

// PendingTasks is the stage's tasks neither done nor running: the
// remaining work the deadline outlook costs.
func (s Stage) PendingTasks() int {
	p := s.NumTasks - s.NumCompletedIndices - s.NumActiveTasks
	if p < 0 {
		return 0
	}
	return p
}

// SpeculationSummary counts a stage attempt's speculative task copies.
type SpeculationSummary struct {
	NumTasks          int `json:"numTasks"`
	NumActiveTasks    int `json:"numActiveTasks"`
	NumCompletedTasks int `json:"numCompletedTasks"`
	NumFailedTasks    int `json:"numFailedTasks"`
	NumKilledTasks    int `json:"numKilledTasks"`
}

// ExecutorStageSummary is one executor's totals in a stage attempt.
type ExecutorStageSummary struct {
	TaskTime       int64 `json:"taskTime"` // ms
	FailedTasks    int   `json:"failedTasks"`
	SucceededTasks int   `json:"succeededTasks"`
	KilledTasks    int   `json:"killedTasks"`
	InputBytes     int64 `json:"inputBytes"`
	ShuffleRead    int64 `json:"shuffleRead"`
	ShuffleWrite   int64 `json:"shuffleWrite"`
	IsExcluded     bool  `json:"isExcludedForStage"`
}

// Task statuses (TaskStatus.java: RUNNING, KILLED, FAILED, SUCCESS, UNKNOWN).
const (
	TaskRunning = "RUNNING"
	TaskSuccess = "SUCCESS"
	TaskFailed  = "FAILED"
	TaskKilled  = "KILLED"
)

// Task is one task attempt: an element of taskList, or a value of a stage
// attempt's tasks map. A speculative copy shares Index with the original
// and has Attempt 1; Host is a host without port.
type Task struct {
	TaskID            int64             `json:"taskId"`
	Index             int               `json:"index"`
	Attempt           int               `json:"attempt"`
	PartitionID       *int              `json:"partitionId,omitempty"` // newer schemas; -1 for old logs
	LaunchTime        Time              `json:"launchTime"`
	Duration          int64             `json:"duration"` // ms; absent while running
	ExecutorID        string            `json:"executorId"`
	Host              string            `json:"host"`
	Status            string            `json:"status"`
	TaskLocality      string            `json:"taskLocality"`
	Speculative       bool              `json:"speculative"`
	ErrorMessage      string            `json:"errorMessage,omitempty"`
	TaskMetrics       *TaskMetrics      `json:"taskMetrics,omitempty"`
	ExecutorLogs      map[string]string `json:"executorLogs"`
	SchedulerDelay    int64             `json:"schedulerDelay"`    // ms
	GettingResultTime int64             `json:"gettingResultTime"` // ms
}

// Succeeded reports a task attempt that finished with SUCCESS.
func (t Task) Succeeded() bool { return t.Status == TaskSuccess }

// TaskMetrics are one task attempt's metrics. Run and deserialize times
// are ms; CPU times and shuffle write time ns, and 0 in Spark 1.x logs
// (not recorded).
type TaskMetrics struct {
	ExecutorDeserializeTime    int64 `json:"executorDeserializeTime"`    // ms
	ExecutorDeserializeCPUTime int64 `json:"executorDeserializeCpuTime"` // ns
	ExecutorRunTime            int64 `json:"executorRunTime"`            // ms
	ExecutorCPUTime            int64 `json:"executorCpuTime"`            // ns
	ResultSize                 int64 `json:"resultSize"`
	JVMGCTime                  int64 `json:"jvmGcTime"` // ms
	ResultSerializationTime    int64 `json:"resultSerializationTime"`
	MemoryBytesSpilled         int64 `json:"memoryBytesSpilled"`
	DiskBytesSpilled           int64 `json:"diskBytesSpilled"`
	PeakExecutionMemory        int64 `json:"peakExecutionMemory"`
	InputMetrics               struct {
		BytesRead   int64 `json:"bytesRead"`
		RecordsRead int64 `json:"recordsRead"`
	} `json:"inputMetrics"`
	OutputMetrics struct {
		BytesWritten   int64 `json:"bytesWritten"`
		RecordsWritten int64 `json:"recordsWritten"`
	} `json:"outputMetrics"`
	ShuffleReadMetrics struct {
		RemoteBlocksFetched int64 `json:"remoteBlocksFetched"`
		LocalBlocksFetched  int64 `json:"localBlocksFetched"`
		FetchWaitTime       int64 `json:"fetchWaitTime"` // ms
		RemoteBytesRead     int64 `json:"remoteBytesRead"`
		LocalBytesRead      int64 `json:"localBytesRead"`
		RecordsRead         int64 `json:"recordsRead"`
	} `json:"shuffleReadMetrics"`
	ShuffleWriteMetrics struct {
		BytesWritten   int64 `json:"bytesWritten"`
		WriteTime      int64 `json:"writeTime"` // ns
		RecordsWritten int64 `json:"recordsWritten"`
	} `json:"shuffleWriteMetrics"`
}

// RunTime is executorRunTime as a duration.
func (m TaskMetrics) RunTime() time.Duration { return Millis(m.ExecutorRunTime) }

// CPUTime is executorCpuTime as a duration; false when it was not
// recorded (0, as in Spark 1.x logs).
func (m TaskMetrics) CPUTime() (time.Duration, bool) {
	return time.Duration(m.ExecutorCPUTime), m.ExecutorCPUTime > 0
}

// TaskSummary is /taskSummary: each metric's value at each of Quantiles.
type TaskSummary struct {
	Quantiles               []float64 `json:"quantiles"`
	Duration                []float64 `json:"duration,omitempty"`
	ExecutorDeserializeTime []float64 `json:"executorDeserializeTime"`
	ExecutorRunTime         []float64 `json:"executorRunTime"` // ms
	ExecutorCPUTime         []float64 `json:"executorCpuTime"` // ns
	JVMGCTime               []float64 `json:"jvmGcTime"`
	SchedulerDelay          []float64 `json:"schedulerDelay,omitempty"`
	InputMetrics            struct {
		BytesRead   []float64 `json:"bytesRead"`
		RecordsRead []float64 `json:"recordsRead"`
	} `json:"inputMetrics"`
	ShuffleWriteMetrics struct {
		WriteBytes   []float64 `json:"writeBytes"`
		WriteRecords []float64 `json:"writeRecords"`
		WriteTime    []float64 `json:"writeTime"` // ns
	} `json:"shuffleWriteMetrics"`
}

// MiscProcess is one element of /allmiscellaneousprocess: on YARN the AM
// ("yarn-am"), which is no executor.
type MiscProcess struct {
	ID          string            `json:"id"`
	HostPort    string            `json:"hostPort"`
	IsActive    bool              `json:"isActive"`
	TotalCores  int               `json:"totalCores"`
	AddTime     Time              `json:"addTime"`
	ProcessLogs map[string]string `json:"processLogs"`
}

// StageKey names a stage attempt.
type StageKey struct{ StageID, AttemptID int }

func (k StageKey) String() string {
	return strconv.Itoa(k.StageID) + "." + strconv.Itoa(k.AttemptID)
}
