// Package rmweb serves the mini cluster's REST APIs as a real Hadoop RM
// does: the ResourceManager (/ws/v1/cluster/...), the MapReduce
// ApplicationMaster behind the RM web proxy (/proxy/{appid}/ws/v1/mapreduce/...)
// and the JobHistory server (/ws/v1/history/mapreduce/...), optionally as an
// RM HA pair (HAPair).
//
// It is a stand-in for Hadoop's web services. The recorded responses of a
// real Hadoop 3.3.6 cluster (testdata/real-3.3.6) are the reference: field
// names, nesting, JSON types (Jersey's one-element lists as objects, numbers
// as strings), status codes, plain-text and error bodies are tested against
// them key by key (real_test.go); where they say nothing, the RM's DAO
// classes and ResourceManagerRest.md, MapredAppMasterRest.md and
// HistoryServerRest.md. Options.HadoopVersion selects 3.3.6 or 3.4.1 where
// the releases differ (dialect.go).
// It renders whatever a State reports; the simulation lives in testenv.
package rmweb

import (
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// Resource is memory (MB), vcores and yarn.io/gpu.
type Resource struct {
	MemoryMB int64
	VCores   int64
	GPUs     int64
}

// Node is one NodeManager as the RM sees it.
type Node struct {
	ID          string // host:port (NM RPC)
	Host        string
	Rack        string
	State       string // RUNNING, UNHEALTHY, LOST, DECOMMISSIONED ...
	HTTPAddress string // host:8042
	Labels      []string
	Total       Resource
	Used        Resource
	Containers  int
	LastHealth  time.Time
	Health      string
}

// Label is a node label (partition).
type Label struct {
	Name      string
	Exclusive bool
}

// QueueUsage is a queue's use of one partition.
type QueueUsage struct {
	Used          Resource
	Pending       Resource
	AMUsed        Resource
	NumContainers int
	// PendingContainers is the number of containers asked for and not
	// yet allocated (apps' view).
	PendingContainers int
}

// QueueRuntime is what the scheduler knows of a queue beyond its conf.
type QueueRuntime struct {
	NumApplications        int
	NumActiveApplications  int
	NumPendingApplications int
	ByPartition            map[string]QueueUsage // "" = default
	// PartitionTotal is the resource of each partition's usable nodes, used
	// to turn absolute fractions into configured/effective resources.
}

// App is one YARN application.
type App struct {
	ID                  string
	User                string
	Name                string
	Queue               string // leaf path, e.g. root.prod
	State               string // NEW ... RUNNING, FINISHED, FAILED, KILLED
	FinalStatus         string // UNDEFINED, SUCCEEDED, FAILED, KILLED
	Progress            float64
	ApplicationType     string // MAPREDUCE
	Tags                []string
	Priority            int
	StartedTime         time.Time
	LaunchTime          time.Time
	FinishedTime        time.Time // zero while running
	Allocated           Resource
	RunningContainers   int
	MemorySeconds       int64
	VcoreSeconds        int64
	GPUSeconds          int64
	AMNodeID            string
	AMHostHTTPAddress   string
	NodeLabelExpression string
	// AMLabelExpression is the partition the AM was asked in: the app's
	// expression, else its queue's default-node-label-expression.
	AMLabelExpression string
	AMContainerID     string
	AttemptID         string // appattempt_..._000001
	// ByPartition is the app's use of each node-label partition ("" =
	// default): used, pending asks, AM container (apps' resourceInfo).
	ByPartition map[string]QueueUsage
	// AMResource is the AM container's size.
	AMResource Resource
	// Preempted is what preemption took from the app.
	Preempted Preempted
}

// Preempted is what preemption took from an app (the RM app's preempted*
// fields: resources of the preempted containers, their counts, and the
// resource-seconds they had run).
type Preempted struct {
	MemoryMB, VCores              int64
	NonAMContainers, AMContainers int
	MemorySeconds, VcoreSeconds   int64
}

// PreemptionState is implemented by states that model preemption: a
// queue's preemptionDisabled in the scheduler REST answer. States that do
// not implement it report preemption disabled everywhere.
type PreemptionState interface {
	PreemptionDisabled(queuePath string) bool
}

// Job is the MapReduce job run by an application.
type Job struct {
	ID         string // job_<clusterTs>_<seq>
	AppID      string
	Name       string
	User       string
	Queue      string
	State      string // NEW, RUNNING, SUCCEEDED, FAILED, KILLED
	SubmitTime time.Time
	StartTime  time.Time
	FinishTime time.Time
	Conf       map[string]string // job configuration (inputdir, memory.mb, ...)
	Tasks      []Task
	Counters   map[string]int64 // job-level FileSystemCounter/TaskCounter/JobCounter values by name
	// HistoryUnloadable: JobHistory cannot load the job's history file (a
	// damaged .jhist). Recorded on 3.3.6 (jhs-unloadable/): the jobs list
	// still shows the job, while /jobs/{id} and everything under it answer
	// 500 with a YarnRuntimeException.
	HistoryUnloadable bool
}

// Task is a map or reduce task.
type Task struct {
	ID                string // task_..._m_000000
	Type              string // MAP, REDUCE
	State             string // NEW, SCHEDULED, RUNNING, SUCCEEDED, FAILED, KILLED
	Progress          float64
	StartTime         time.Time
	FinishTime        time.Time
	SuccessfulAttempt string
	Attempts          []Attempt
}

// Attempt is one task attempt.
type Attempt struct {
	ID              string // attempt_..._m_000000_0
	Type            string // MAP, REDUCE
	State           string // NEW, STARTING, RUNNING, SUCCEEDED, FAILED, KILLED
	Progress        float64
	NodeHTTPAddress string
	Rack            string
	ContainerID     string
	NodeID          string   // NM id (host:port) of the attempt's container
	Allocated       Resource // the attempt's container size
	StartTime       time.Time
	FinishTime      time.Time // zero while running
	ShuffleFinish   time.Time // reduces
	MergeFinish     time.Time // reduces
	Diagnostics     string
	Counters        map[string]int64 // HDFS_BYTES_READ, CPU_MILLISECONDS, ...
}

// AppCounts counts apps by state, and what running apps still ask for in
// the default partition (QueueMetrics' pending figures count it only).
type AppCounts struct {
	Running, Pending, Completed, Failed, Killed int
	PendingDefault                              Resource
	PendingDefaultContainers                    int
}

// State is what the handlers render and mutate. Every method is safe for
// concurrent use (the simulation takes its own lock) and returns copies.
type State interface {
	// ClusterStarted is the RM start time; Now is the virtual clock.
	ClusterStarted() time.Time
	Now() time.Time
	Nodes() []Node
	Labels() []Label
	// SchedulerConf is the live configuration and its version
	// (GET /scheduler-conf and /scheduler-conf/version).
	SchedulerConf() (schedconf.Conf, int64)
	// PartitionTotals are the resources of each partition's usable nodes.
	PartitionTotals() map[string]Resource
	QueueRuntime(path string) QueueRuntime
	Apps() []App
	// AppCounts are the cluster's app counters (/metrics). A real RM keeps
	// them as counters in ClusterMetrics and the root QueueMetrics, so a
	// metrics answer costs it nothing per app; this must not copy apps.
	AppCounts() AppCounts
	App(id string) (App, bool)
	// Job returns the MR job of an app (for the AM while running and for
	// JobHistory once finished).
	Job(appID string) (Job, bool)
	// FinishedJobs lists jobs the JobHistory server knows.
	FinishedJobs() []Job

	// MutateConf validates and (unless validateOnly) applies a mutation
	// atomically; on error nothing changes. Returns the resulting conf.
	MutateConf(m schedconf.Mutation, validateOnly bool) (schedconf.Conf, error)
	// SetAppPriority sets an app's priority, capped at the cluster maximum;
	// returns the effective priority.
	SetAppPriority(appID string, priority int) (int, error)
	MoveApp(appID, queue string) error
	AddLabels(labels []Label) error
	RemoveLabels(names []string) error
	ReplaceNodeLabels(nodeToLabels map[string][]string) error
}
