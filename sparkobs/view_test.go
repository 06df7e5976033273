package sparkobs

import (
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/spark"
)

func TestView(t *testing.T) {
	stages := []spark.Stage{
		{StageID: 0, Name: "scan", Status: "COMPLETE", NumTasks: 100, NumCompletedIndices: 100},
		{StageID: 1, Name: "join", Status: "FAILED", AttemptID: 0, NumTasks: 50, NumCompletedIndices: 10},
		{StageID: 1, Name: "join", Status: "ACTIVE", AttemptID: 1, NumTasks: 50, NumCompletedIndices: 20, NumActiveTasks: 8},
		{StageID: 2, Name: "agg", Status: "PENDING", NumTasks: 16},
		{StageID: 3, Name: "skipped", Status: "SKIPPED", NumTasks: 16},
	}
	cases := []struct {
		name                          string
		stages                        []spark.Stage
		stage                         string
		id, done, active, pend, sd, n int
	}{
		{"retried stage in progress", stages, "join", 1, 120, 8, 38, 2, 4},
		{"next pending when none active", stages[3:], "agg", 2, 0, 0, 16, 1, 2},
		{"all done", stages[:1], "", -1, 100, 0, 0, 1, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := View("app_1", c.stages, map[string]int{"gpu": 2}, map[string]int{"gpu": 8})
			if v.Stage != c.stage || v.StageID != c.id || v.TasksDone != c.done || v.TasksActive != c.active || v.TasksPending != c.pend ||
				v.StagesDone != c.sd || v.Stages != c.n || v.Executors["gpu"] != 2 || v.Cores["gpu"] != 8 {
				t.Errorf("got %+v", v)
			}
		})
	}
}
