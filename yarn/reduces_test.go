package yarn

import (
	"context"
	"reflect"
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// With Config.RunningReduces, the running job carries its running reduce
// (MapredAppMasterRest.md's example: its one map done, one reduce RUNNING
// at progress 100, elapsedTime 0, its attempt on host.domain.com:8042);
// the reduce's node is read from its attempts once, a second read asks
// only for the tasks. Without the option, the maps being done, the second
// request asks for the reduce tasks instead of the map tasks: progress and
// elapsed, no node (the job budget's three requests per job hold).
func TestGoldenRunningReduces(t *testing.T) {
	const appID = "application_1326232085508_0004"
	const jobID = "job_1326232085508_4_4"
	const root = "/proxy/" + appID + "/ws/v1/mapreduce/jobs"
	const attempts = root + "/" + jobID + "/tasks/task_1326232085508_4_4_r_0/attempts"
	tests := []struct {
		name      string
		on        bool
		progress  []float64
		elapsed   []float64
		nodes     []string
		attempts  int32 // attempts requests after two reads
		taskReads int32 // tasks requests after two reads
	}{
		{"off, maps done: the reduce tasks instead of the maps, no node", false, []float64{1}, []float64{0}, nil, 0, 2},
		{"on: the reduce, its node read once", true, []float64{1}, []float64{0}, []string{"host.domain.com:8042"}, 1, 4},
		{"on, the observe's job budget spent: as off", true, []float64{1}, []float64{0}, nil, 0, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newGoldenServer(t)
			g.file(t, root, "am-jobs.json")
			g.file(t, root+"/"+jobID+"/tasks", "am-tasks.json")
			g.file(t, attempts, "am-task-attempts.json")
			c, err := New(Config{RMAddresses: []string{g.URL}, JHSAddress: g.URL, Retries: -1, RunningReduces: tt.on})
			if err != nil {
				t.Fatal(err)
			}
			if tt.on && tt.attempts == 0 {
				c.jobs.setReduceAllowance(0) // as planJobReads leaves it when the budget is spent
			}
			app := cluster.App{ID: appID, Type: "MAPREDUCE", State: cluster.AppRunning}
			var j *cluster.Job
			for range 2 {
				if j, err = c.RunningJob(context.Background(), app); err != nil {
					t.Fatal(err)
				}
			}
			if !reflect.DeepEqual(j.RunningReduces, tt.progress) || !reflect.DeepEqual(j.RunningReducesElapsed, tt.elapsed) ||
				!reflect.DeepEqual(j.RunningReduceNodes, tt.nodes) {
				t.Errorf("reduces %v elapsed %v nodes %v; want %v %v %v", j.RunningReduces, j.RunningReducesElapsed, j.RunningReduceNodes,
					tt.progress, tt.elapsed, tt.nodes)
			}
			if n := g.count(attempts); n != tt.attempts {
				t.Errorf("%d attempts requests, want %d", n, tt.attempts)
			}
			if n := g.count(root + "/" + jobID + "/tasks"); n != tt.taskReads {
				t.Errorf("%d tasks requests, want %d", n, tt.taskReads)
			}
			if q := g.lastQuery(root + "/" + jobID + "/tasks"); q != "type=r" {
				t.Errorf("last tasks query %q, want type=r", q)
			}
		})
	}
}

func TestReducePhaseRead(t *testing.T) {
	tests := []struct {
		name string
		job  cluster.Job
		full bool
		want bool
	}{
		{"maps done, a reduce running: the reduces", cluster.Job{MapsTotal: 4, MapsCompleted: 4, ReducesRunning: 1}, false, true},
		{"maps left: the maps", cluster.Job{MapsTotal: 4, MapsCompleted: 3, ReducesRunning: 1}, false, false},
		{"maps done, no reduce running: the maps (nothing to read either way)", cluster.Job{MapsTotal: 4, MapsCompleted: 4}, false, false},
		{"no maps told: the maps", cluster.Job{ReducesRunning: 1}, false, false},
		{"full reduce reads (Config.RunningReduces): the maps, then the reduces", cluster.Job{MapsTotal: 4, MapsCompleted: 4, ReducesRunning: 1}, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := reducePhaseRead(tt.job, tt.full); got != tt.want {
				t.Errorf("reducePhaseRead = %v, want %v", got, tt.want)
			}
		})
	}
}
