package calibrate

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// A real 3.3.6 JobHistory answer (testdata, recorded): task m_000020 was
// preempted (_0 KILLED, "Container preempted by scheduler"), re-ran as _1,
// which won against a speculative _2 (KILLED, "Speculation: ..._1
// succeeded first!"). Calibration learns from _1 only.
func TestSamplesKeepTheWinnerOnly(t *testing.T) {
	data, err := os.ReadFile("testdata/jhs_attempts_of_a_preempted_task.json")
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		TaskAttempts struct {
			TaskAttempt []struct {
				ID, State, NodeHTTPAddress, Type, Diagnostics string
				StartTime, FinishTime                         int64
			} `json:"taskAttempt"`
		} `json:"taskAttempts"`
	}
	if err := json.Unmarshal(data, &body); err != nil {
		t.Fatal(err)
	}
	job := &cluster.Job{ID: "job_1795415892786_0001"}
	for i, a := range body.TaskAttempts.TaskAttempt {
		job.Attempts = append(job.Attempts, cluster.Attempt{ID: a.ID, Type: cluster.TaskType(a.Type), State: a.State,
			NodeHTTPAddress: a.NodeHTTPAddress, StartTime: time.UnixMilli(a.StartTime), FinishTime: time.UnixMilli(a.FinishTime),
			Elapsed: time.Duration(a.FinishTime-a.StartTime) * time.Millisecond, HDFSBytesRead: 1 << 20,
			// As the yarn client marks them: any attempt listed after the first.
			Speculative: i > 0})
	}
	app := cluster.App{ID: "application_1795415892786_0001", Job: job}
	got := SamplesFromApp(app, "crypto", map[string]string{"cpunode": "cpu", "gpunode": "gpu"})
	if len(got) != 1 || got[0].AttemptID != "attempt_1795415892786_0001_m_000020_1" || got[0].NodeType != "gpu" {
		t.Fatalf("want one sample from the winner _1 on gpunode, got %+v", got)
	}
}

// JobHistory reads may be a sample of a job's tasks: a sample's JobMaps is
// still the whole job's map count (the size regression's x).
func TestSampledAttemptsKeepTheJobsMapCount(t *testing.T) {
	fin := time.Unix(1000, 0)
	a := cluster.App{StartedTime: time.Unix(0, 0), FinishedTime: fin, Job: &cluster.Job{ID: "job_1", MapsTotal: 1000}}
	for i := 0; i < 3; i++ {
		a.Job.Attempts = append(a.Job.Attempts, cluster.Attempt{ID: fmt.Sprintf("attempt_1_m_%06d_0", i), Type: cluster.TaskMap,
			State: "SUCCEEDED", NodeID: "n1:8041", StartTime: time.Unix(10, 0), FinishTime: time.Unix(70, 0), Elapsed: time.Minute})
	}
	got := SamplesFromApp(a, "c", map[string]string{"n1:8041": "cpu"})
	if len(got) != 3 {
		t.Fatalf("%d samples, want 3", len(got))
	}
	for _, s := range got {
		if s.JobMaps != 1000 {
			t.Errorf("JobMaps %d from a 3-task sample, want the job's 1000", s.JobMaps)
		}
	}
}
