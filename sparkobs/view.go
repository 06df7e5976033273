package sparkobs

import (
	"sort"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/spark"
)

// AppView is a running Spark app as status and the report show it
// (issue 36 item 5): its class, the stage in progress, its tasks done,
// running and pending over the stages not finished, and the executors it
// holds per executor type, as of its last read.
type AppView struct {
	AppID string `json:"appId"`
	Name  string `json:"name"`
	Queue string `json:"queue"`
	Class string `json:"class"`
	// Stage is the stage in progress: the lowest-numbered active one
	// (Spark runs a job's stages in ID order), else the next pending; ""
	// when every stage read is done.
	Stage       string `json:"stage,omitempty"`
	StageID     int    `json:"stageId"`
	StagesDone  int    `json:"stagesDone"`
	Stages      int    `json:"stages"`
	TasksDone   int    `json:"tasksDone"`
	TasksActive int    `json:"tasksActive"`
	// TasksPending are the tasks neither done nor running of the stages
	// not finished (spark.Stage.PendingTasks).
	TasksPending int `json:"tasksPending"`
	// Executors and Cores are the active executors and their cores per
	// executor type (ExecutorType: the node type, or its GPU type).
	Executors map[string]int `json:"executorsByType"`
	Cores     map[string]int `json:"coresByType"`
}

// View is an app's AppView from its last read (Cycle.Stages, Slots,
// Executors). Stages counted once per stage ID: a retried stage's latest
// attempt.
func View(appID string, stages []spark.Stage, execs, cores map[string]int) AppView {
	v := AppView{AppID: appID, StageID: -1, Executors: copyCounts(execs), Cores: copyCounts(cores)}
	latest := map[int]spark.Stage{}
	for _, s := range stages {
		if p, ok := latest[s.StageID]; !ok || s.AttemptID > p.AttemptID {
			latest[s.StageID] = s
		}
	}
	ids := make([]int, 0, len(latest))
	for id := range latest {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	var next *spark.Stage
	for _, id := range ids {
		s := latest[id]
		v.Stages++
		switch s.Status {
		case "COMPLETE", "SKIPPED":
			v.StagesDone++
			v.TasksDone += s.NumCompletedIndices
			continue
		case "FAILED":
			continue
		}
		v.TasksDone += s.NumCompletedIndices
		v.TasksActive += s.NumActiveTasks
		v.TasksPending += s.PendingTasks()
		if s.Status == "ACTIVE" && (next == nil || next.Status != "ACTIVE") {
			next = &s
		} else if next == nil {
			next = &s
		}
	}
	if next != nil {
		v.Stage, v.StageID = next.Name, next.StageID
	}
	return v
}

func copyCounts(m map[string]int) map[string]int {
	out := make(map[string]int, len(m))
	for k, n := range m {
		out[k] = n
	}
	return out
}
