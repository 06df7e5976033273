// Package sparkweb serves the mini cluster's Spark applications in the
// dialect of Spark's monitoring REST API (/api/v1): a running app's driver
// UI behind the RM web proxy (/proxy/<appId>/api/v1/applications/<appId>/...)
// and the History Server (port 18080) for finished ones.
//
// It is a stand-in for Spark's UI and History Server. The reference is
// Spark's own recorded answers (testdata/history-server, copied from
// shared/spark-rest/): field names, nesting and JSON types are tested
// against every recorded file key by key (shape_test.go), the differences
// of older Spark versions' files listed there. It renders whatever a State
// reports; the simulation lives in testenv/sim.
//
// What it does not model: jobs beyond one per app, RDD storage, SQL and
// streaming endpoints, environment, event logs, the History
// Server's in-progress apps (it lists finished apps only: Spark updates
// them only every spark.history.fs.update.interval), and metrics the simulation
// does not draw (GC, memory, shuffle: zero).
package sparkweb

import "time"

// App is one Spark application (YARN cluster mode: one attempt, "1").
type App struct {
	ID, Name, User string
	Start, End     time.Time // End zero while running
	// AMHost, AMContainer: the driver's container (the YARN AM).
	AMHost, AMContainer string
	AMAdd               time.Time
	Executors           []Executor
	Stages              []Stage
}

// Executor is one executor container.
type Executor struct {
	ID              string // "1", "2", ...
	Host            string // the NodeManager host
	Port            int    // the executor's block manager port
	Cores           int
	GPUs            int
	ContainerID     string
	Add, Remove     time.Time // Remove zero while it runs
	RemoveReason    string
	ActiveTasks     int
	FailedTasks     int
	CompletedTasks  int
	TotalDurationMs int64
	TotalInputBytes int64
	MaxMemory       int64
}

// Stage is one stage attempt and its task attempts.
type Stage struct {
	ID, Attempt                         int
	Name                                string
	Status                              string // ACTIVE, COMPLETE, PENDING
	Submission, FirstLaunch, Completion time.Time
	NumTasks                            int
	Tasks                               []Task
}

// Task is one task attempt.
type Task struct {
	TaskID               int64
	Index, Attempt       int
	Launch, Finish       time.Time // Finish zero while running
	ExecutorID, Host     string
	Status               string // RUNNING, SUCCESS, KILLED, FAILED
	Locality             string
	Speculative          bool
	ErrorMessage         string
	RunMs, DeserializeMs int64
	ResultSerMs, DelayMs int64
	CPUNs                int64
	InputBytes           int64
	ContainerID, User    string
}

// State is what the handlers render; every method returns copies and is
// safe for concurrent use.
type State interface {
	Now() time.Time
	// SparkApp is one Spark application by YARN app id.
	SparkApp(id string) (App, bool)
	// SparkApps are every Spark application, in submission order.
	SparkApps() []App
}
