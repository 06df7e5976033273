package cluster

import "time"

// JobView says how current a running MapReduce app's job (App.Job) is.
// Reading it costs two AM requests, so observe reads only some apps' jobs
// per cycle (yarn.ObserveOptions.JobBudget) and the others keep an earlier
// read or have none.
type JobView string

const (
	// JobFresh: read from the AM (or JobHistory, when the AM was gone)
	// during this observe.
	JobFresh JobView = "fresh"
	// JobReused: read by an earlier observe (App.JobReadAt) and kept,
	// either because the RM shows no change in the app since (same
	// progress, containers and allocation) or because this cycle's budget
	// was spent on other apps; its counts may lag the app.
	JobReused JobView = "reused"
	// JobEstimated: never read (over budget); App.Job is nil and the app's
	// progress is only what the RM's apps answer says (App.Progress,
	// reported by the AM on its heartbeat). Nothing is known of its task
	// counts or running maps.
	JobEstimated JobView = "estimated"
)

// Exact reports whether the job was read, now or earlier (not estimated).
func (v JobView) Exact() bool { return v == JobFresh || v == JobReused }

// JobAge is how old the app's job is at the snapshot's time t (zero for a
// fresh read or when there is none).
func (a App) JobAge(t time.Time) time.Duration {
	if a.Job == nil || a.JobReadAt.IsZero() || t.Before(a.JobReadAt) {
		return 0
	}
	return t.Sub(a.JobReadAt)
}
