package cluster

import (
	"fmt"
	"strings"
	"time"
)

// UnreadableJob is a finished job JobHistory lists but cannot serve: its
// job, tasks or conf answered an error (a damaged history file answers 500,
// recorded on 3.3.6). Err is that answer.
type UnreadableJob struct {
	ID           string    `json:"job"`
	AppID        string    `json:"appId"`
	Name         string    `json:"name"`
	User         string    `json:"user"`
	Queue        string    `json:"queue"`
	FinishedTime time.Time `json:"finished"`
	Err          string    `json:"error"`
}

// UnreadableJobsError is returned beside the jobs that were read when some
// listed jobs could not be: the caller keeps the rest and records these.
type UnreadableJobsError struct{ Jobs []UnreadableJob }

func (e *UnreadableJobsError) Error() string {
	each := make([]string, len(e.Jobs))
	for i, j := range e.Jobs {
		each[i] = j.ID + " (" + j.Err + ")"
	}
	return fmt.Sprintf("JobHistory could not serve %d job(s): %s", len(e.Jobs), strings.Join(each, "; "))
}
