package yarn

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

type jobJSON struct {
	ID               string    `json:"id"`
	Name             string    `json:"name"`
	Queue            string    `json:"queue"`
	User             string    `json:"user"`
	State            string    `json:"state"`
	StartTime        jerseyInt `json:"startTime"`
	FinishTime       jerseyInt `json:"finishTime"`
	MapsTotal        jerseyInt `json:"mapsTotal"`
	MapsCompleted    jerseyInt `json:"mapsCompleted"`
	ReducesTotal     jerseyInt `json:"reducesTotal"`
	ReducesCompleted jerseyInt `json:"reducesCompleted"`
	ReducesRunning   jerseyInt `json:"reducesRunning"` // AM only
}

type taskJSON struct {
	ID       string      `json:"id"`
	State    string      `json:"state"`
	Type     string      `json:"type"`
	Progress jerseyFloat `json:"progress"`
	// ElapsedTime is ms; the AM's tasks carry it (recorded 3.3.6 bodies).
	ElapsedTime jerseyInt `json:"elapsedTime"`
}

type attemptJSON struct {
	ID                 string    `json:"id"`
	Rack               string    `json:"rack"`
	State              string    `json:"state"`
	Type               string    `json:"type"`
	Status             string    `json:"status"`
	Diagnostics        string    `json:"diagnostics"`
	NodeHTTPAddress    string    `json:"nodeHttpAddress"`
	StartTime          jerseyInt `json:"startTime"`
	FinishTime         jerseyInt `json:"finishTime"`
	ElapsedTime        jerseyInt `json:"elapsedTime"`
	ShuffleFinishTime  jerseyInt `json:"shuffleFinishTime"`
	MergeFinishTime    jerseyInt `json:"mergeFinishTime"`
	ElapsedShuffleTime jerseyInt `json:"elapsedShuffleTime"`
	ElapsedMergeTime   jerseyInt `json:"elapsedMergeTime"`
	ElapsedReduceTime  jerseyInt `json:"elapsedReduceTime"`
}

// Bodies of the MapReduce AM and JobHistory list endpoints.
type (
	jobsJSON struct {
		Jobs *struct {
			Job jerseyList[jobJSON] `json:"job"`
		} `json:"jobs"`
	}
	tasksJSON struct {
		Tasks *struct {
			Task jerseyList[taskJSON] `json:"task"`
		} `json:"tasks"`
	}
	taskAttemptsJSON struct {
		TaskAttempts *struct {
			TaskAttempt jerseyList[attemptJSON] `json:"taskAttempt"`
		} `json:"taskAttempts"`
	}
	confJSON struct {
		Conf struct {
			Property jerseyList[struct {
				Name  string `json:"name"`
				Value string `json:"value"`
			}] `json:"property"`
		} `json:"conf"`
	}
	attemptCountersJSON struct {
		Counters struct {
			Groups jerseyList[struct {
				Name    string `json:"counterGroupName"`
				Counter jerseyList[struct {
					Name  string    `json:"name"`
					Value jerseyInt `json:"value"`
				}] `json:"counter"`
			}] `json:"taskAttemptCounterGroup"`
		} `json:"jobTaskAttemptCounters"`
	}
)

// jobBase is where a job's REST resources live: the AM through the RM
// proxy while it runs, JobHistory once it finished.
type jobBase struct {
	root string // ".../ws/v1/mapreduce" or ".../ws/v1/history/mapreduce"
}

// amBase is the app's AM behind the current active RM's web proxy. The
// app's trackingUrl is not used: it keeps the host of the RM that was
// active when the app started, which after an RM failover is a standby or
// dead (recorded on a real 3.3.6 HA pair), while every RM proxies
// /proxy/{app}/ for any app. A standalone web proxy, when configured,
// serves /proxy/ instead of the RMs.
func (c *Client) amBase(app cluster.App) (jobBase, error) {
	if app.ID == "" || strings.ContainsAny(app.ID, "/?#") {
		return jobBase{}, fmt.Errorf("app id %q: not an application id", app.ID)
	}
	proxy := c.cfg.WebProxyAddress
	if proxy == "" {
		proxy = c.ActiveRM()
	}
	return jobBase{root: proxy + "/proxy/" + app.ID + "/ws/v1/mapreduce"}, nil
}

// amGone reports an AM read that means "the AM is gone, ask JobHistory":
// a 404, or a redirect the client did not follow because it leads to a web
// page (a finished app's proxy answers 302 to a JobHistory web page).
func amGone(err error) bool {
	var re *RemoteError
	return errors.As(err, &re) && (re.Status == http.StatusNotFound || re.Status >= 300 && re.Status < 400)
}

func (c *Client) jhsBase() (jobBase, error) {
	if c.cfg.JHSAddress == "" {
		return jobBase{}, fmt.Errorf("no JobHistory server address: give --jhs or set mapreduce.jobhistory.webapp.address")
	}
	return jobBase{root: strings.TrimRight(c.cfg.JHSAddress, "/") + "/ws/v1/history/mapreduce"}, nil
}

// RunningJob reads the MapReduce job of a running app from its AM.
func (c *Client) RunningJob(ctx context.Context, app cluster.App) (*cluster.Job, error) {
	b, err := c.amBase(app)
	if err != nil {
		return nil, err
	}
	var body jobsJSON
	if err := c.getJSON(ctx, b.root+"/jobs", nil, &body); err != nil {
		if amGone(err) && c.cfg.JHSAddress != "" {
			// The app finished between the apps listing and this call: its
			// AM is gone and the proxy answers 404, or 302 to a JobHistory
			// web page (Hadoop 3.3.6); JobHistory's REST API has the job.
			return c.historyJob(ctx, app, err)
		}
		return nil, err
	}
	if body.Jobs == nil || len(body.Jobs.Job) == 0 {
		return nil, fmt.Errorf("GET %s/jobs: no job", b.root)
	}
	j := body.Jobs.Job[0].job()
	// Running reduces with their nodes (Config.RunningReduces) while the
	// observe's job budget allows; else as without the option.
	full := c.cfg.RunningReduces && j.ReducesRunning > 0 && c.jobs.takeReduceRead()
	if reducePhaseRead(j, full) {
		if err := c.readReduceTasks(ctx, b, &j, ""); err != nil {
			return nil, fmt.Errorf("running reduces of %s: %w", j.ID, err)
		}
		return &j, nil
	}
	// Running maps' progress, for the remaining-time prediction.
	var tasks tasksJSON
	q := url.Values{}
	q.Set("type", "m")
	if err := c.getJSON(ctx, b.root+"/jobs/"+j.ID+"/tasks", q, &tasks); err != nil {
		return nil, err
	}
	if tasks.Tasks != nil {
		for _, t := range tasks.Tasks.Task {
			if t.Type != "MAP" {
				continue
			}
			switch t.State {
			case "RUNNING":
				j.RunningMaps = append(j.RunningMaps, float64(t.Progress)/100)
				j.RunningMapsElapsed = append(j.RunningMapsElapsed, float64(t.ElapsedTime)/1000)
			case "SUCCEEDED":
				j.CompletedMaps = append(j.CompletedMaps, float64(t.ElapsedTime)/1000)
			}
		}
	}
	if full {
		if err := c.readReduceTasks(ctx, b, &j, app.ID); err != nil {
			return nil, fmt.Errorf("running reduces of %s: %w", j.ID, err)
		}
	}
	return &j, nil
}

// reducePhaseRead is whether a running job's second request asks for its
// reduce tasks instead of its map tasks: once its maps are all done there
// is no running map to read, and the report costs each running reduce by
// the share it has left (deadline.ReduceLefts, from Job.RunningReduces),
// so the read stays at the job budget's two requests (requestsPerJobRead).
// Not with full (Config.RunningReduces), which reads both lists and the
// reduces' nodes.
func reducePhaseRead(j cluster.Job, full bool) bool {
	return !full && j.MapsTotal > 0 && j.MapsCompleted >= j.MapsTotal && j.ReducesRunning > 0
}

// readReduceTasks sets the job's running reduces from the AM: each one's
// progress and elapsed seconds (the tasks list, as for maps) and, with
// appID (Config.RunningReduces), the node HTTP address (host:port) of its
// running attempt, "" when none is told. The reduce phase's speed depends
// on the node type a reduce landed on (a GPU node runs train's reduces 4×
// faster), which the tasks list does not say: a task's node is read from
// its attempts once and remembered for the app (jobCache.reduceNode), so a
// cycle costs one request (the reduce tasks) once each reduce is known.
func (c *Client) readReduceTasks(ctx context.Context, b jobBase, j *cluster.Job, appID string) error {
	var tasks tasksJSON
	q := url.Values{}
	q.Set("type", "r")
	if err := c.getJSON(ctx, b.root+"/jobs/"+j.ID+"/tasks", q, &tasks); err != nil {
		return err
	}
	if tasks.Tasks == nil {
		return nil
	}
	for _, t := range tasks.Tasks.Task {
		if t.Type != "REDUCE" || t.State != "RUNNING" {
			continue
		}
		j.RunningReduces = append(j.RunningReduces, float64(t.Progress)/100)
		j.RunningReducesElapsed = append(j.RunningReducesElapsed, float64(t.ElapsedTime)/1000)
		if appID == "" {
			continue
		}
		addr, ok := c.jobs.reduceNode(appID, t.ID)
		if !ok && c.jobs.takeReduceRead() {
			var atts taskAttemptsJSON
			if err := c.getJSON(ctx, b.root+"/jobs/"+j.ID+"/tasks/"+t.ID+"/attempts", nil, &atts); err != nil {
				return err
			}
			if atts.TaskAttempts != nil {
				for _, a := range atts.TaskAttempts.TaskAttempt {
					if a.State == "RUNNING" && a.NodeHTTPAddress != "" {
						addr = cluster.HTTPHostPort(a.NodeHTTPAddress)
						c.jobs.putReduceNode(appID, t.ID, addr)
						break
					}
				}
			}
		}
		j.RunningReduceNodes = append(j.RunningReduceNodes, addr)
	}
	return nil
}

func (j jobJSON) job() cluster.Job {
	return cluster.Job{ID: j.ID, Name: j.Name, State: j.State, StartTime: msTime(int64(j.StartTime)), FinishTime: msTime(int64(j.FinishTime)),
		MapsTotal: int(j.MapsTotal), MapsCompleted: int(j.MapsCompleted), ReducesTotal: int(j.ReducesTotal), ReducesCompleted: int(j.ReducesCompleted),
		ReducesRunning: int(j.ReducesRunning)}
}

// historyJob reads an app's job from JobHistory (no running maps); amErr
// is why the AM could not be read.
func (c *Client) historyJob(ctx context.Context, app cluster.App, amErr error) (*cluster.Job, error) {
	b, err := c.jhsBase()
	if err != nil {
		return nil, err
	}
	id := "job_" + strings.TrimPrefix(app.ID, "application_")
	var body struct {
		Job *jobJSON `json:"job"`
	}
	if err := c.getJSON(ctx, b.root+"/jobs/"+id, nil, &body); err != nil {
		return nil, fmt.Errorf("AM of %s gone (%s) and JobHistory: %w", app.ID, goneReason(amErr), err)
	}
	if body.Job == nil {
		return nil, fmt.Errorf("GET %s/jobs/%s: no job", b.root, id)
	}
	j := body.Job.job()
	return &j, nil
}

// FinishedJobs reads jobs that finished since `since` from JobHistory, with
// their successful task attempts and HDFS_BYTES_READ; each job becomes a
// cluster.App (queue, user, name, tags from the job conf) for calibration.
// A listed job whose resources JobHistory answers with an error (a damaged
// history file: 500, recorded) is left out and named in a
// *cluster.UnreadableJobsError returned beside the others, so one such job
// does not hide the rest; an unanswered request (connection, timeout)
// still fails the whole call, as nothing says the job is at fault.
func (c *Client) FinishedJobs(ctx context.Context, since time.Time) ([]cluster.App, error) {
	b, err := c.jhsBase()
	if err != nil {
		return nil, err
	}
	q := url.Values{}
	if !since.IsZero() {
		q.Set("finishedTimeBegin", strconv.FormatInt(since.UnixMilli()+1, 10))
	}
	var body jobsJSON
	if err := c.getJSON(ctx, b.root+"/jobs", q, &body); err != nil {
		return nil, err
	}
	if body.Jobs == nil {
		return nil, nil
	}
	var out []cluster.App
	var bad []cluster.UnreadableJob
	for _, jj := range body.Jobs.Job {
		app, err := c.finishedApp(ctx, b, jj)
		if jobAnswered(err) {
			bad = append(bad, unreadable(jj, err))
			continue
		}
		if err != nil {
			return out, err
		}
		out = append(out, app)
	}
	if len(bad) > 0 {
		return out, &cluster.UnreadableJobsError{Jobs: bad}
	}
	return out, nil
}

// FinishedJob reads one finished job by id (job_<ts>_<seq>) from
// JobHistory as FinishedJobs does: the retry of a job it could not serve
// before. An error answer for the job is a *cluster.UnreadableJobsError.
func (c *Client) FinishedJob(ctx context.Context, jobID string) (cluster.App, error) {
	b, err := c.jhsBase()
	if err != nil {
		return cluster.App{}, err
	}
	var body struct {
		Job *jobJSON `json:"job"`
	}
	err = c.getJSON(ctx, b.root+"/jobs/"+jobID, nil, &body)
	if err == nil && body.Job == nil {
		err = badAnswer{fmt.Errorf("GET %s/jobs/%s: no job", b.root, jobID)}
	}
	if err == nil {
		var app cluster.App
		if app, err = c.finishedApp(ctx, b, *body.Job); err == nil {
			return app, nil
		}
	}
	if jobAnswered(err) {
		jj := jobJSON{ID: jobID}
		if body.Job != nil {
			jj = *body.Job
		}
		return cluster.App{}, &cluster.UnreadableJobsError{Jobs: []cluster.UnreadableJob{unreadable(jj, err)}}
	}
	return cluster.App{}, err
}

// finishedApp reads one listed job's attempts and conf into an App.
func (c *Client) finishedApp(ctx context.Context, b jobBase, jj jobJSON) (cluster.App, error) {
	job := jj.job()
	atts, tags, err := c.jobAttempts(ctx, b, jj.ID)
	if err != nil {
		return cluster.App{}, err
	}
	job.Attempts = atts
	q := jj.Queue
	if !strings.HasPrefix(q, "root.") {
		q = "root." + q
	}
	return cluster.App{ID: appIDOf(jj.ID), Name: jj.Name, User: jj.User, Queue: q, State: cluster.AppFinished,
		Type: "MAPREDUCE", Tags: tags, StartedTime: job.StartTime, FinishedTime: job.FinishTime, Job: &job}, nil
}

func appIDOf(jobID string) string { return "application_" + strings.TrimPrefix(jobID, "job_") }

// jobAnswered: JobHistory answered a request about the job with an error
// (any status, or a body that is not the job): the job is at fault, not
// the connection, and the next job may read fine.
func jobAnswered(err error) bool {
	var re *RemoteError
	var bad badAnswer
	return errors.As(err, &re) || errors.As(err, &bad)
}

func unreadable(jj jobJSON, err error) cluster.UnreadableJob {
	q := jj.Queue
	if q != "" && !strings.HasPrefix(q, "root.") {
		q = "root." + q
	}
	return cluster.UnreadableJob{ID: jj.ID, AppID: appIDOf(jj.ID), Name: jj.Name, User: jj.User, Queue: q,
		FinishedTime: msTime(int64(jj.FinishTime)), Err: err.Error()}
}

// jobAttempts reads a job's tasks and the attempts of a sample of its
// succeeded ones (with the HDFS_BYTES_READ counter for maps), and the job's
// tags from its conf. JobHistory's REST API lists attempts per task and
// counters per attempt, so a job costs 2 + tasks + maps requests read
// whole — about 2,000 for a 1,000-map job (issue 19); the sample
// (Config.HistoryTasksPerJob per task type) bounds it.
func (c *Client) jobAttempts(ctx context.Context, b jobBase, jobID string) ([]cluster.Attempt, []string, error) {
	var conf confJSON
	var tags []string
	err := c.getJSON(ctx, b.root+"/jobs/"+jobID+"/conf", nil, &conf)
	var re *RemoteError
	if errors.As(err, &re) && re.Status >= 500 {
		// JobHistory could not load the job (a damaged history file
		// answers 500 here as for its tasks, recorded): its tasks would
		// cost another failed request.
		return nil, nil, err
	}
	if err == nil {
		for _, p := range conf.Conf.Property {
			if p.Name == "mapreduce.job.tags" {
				for _, t := range strings.Split(p.Value, ",") {
					if t = strings.TrimSpace(t); t != "" {
						tags = append(tags, t)
					}
				}
			}
		}
	}
	var tasks tasksJSON
	if err := c.getJSON(ctx, b.root+"/jobs/"+jobID+"/tasks", nil, &tasks); err != nil {
		return nil, nil, err
	}
	if tasks.Tasks == nil {
		return nil, tags, nil
	}
	var out []cluster.Attempt
	for _, t := range sampleTasks(tasks.Tasks.Task, c.cfg.HistoryTasksPerJob) {
		var atts taskAttemptsJSON
		if err := c.getJSON(ctx, b.root+"/jobs/"+jobID+"/tasks/"+t.ID+"/attempts", nil, &atts); err != nil {
			return nil, nil, err
		}
		if atts.TaskAttempts == nil {
			continue
		}
		spec := speculative(atts.TaskAttempts.TaskAttempt)
		for i, a := range atts.TaskAttempts.TaskAttempt {
			ca := a.attempt(t.ID, jobID)
			ca.Speculative = spec[i]
			if ca.Succeeded() && ca.Type == cluster.TaskMap {
				bytes, cpu, err := c.attemptCounters(ctx, b, jobID, t.ID, a.ID)
				if err != nil {
					return nil, nil, err
				}
				ca.HDFSBytesRead, ca.CPUTime = bytes, cpu
			}
			out = append(out, ca)
		}
	}
	return out, tags, nil
}

func (a attemptJSON) attempt(taskID, jobID string) cluster.Attempt {
	// NodeID stays empty: the node is found from NodeHTTPAddress against
	// the RM's nodes (cluster.WithAttemptNodes), by host:port first.
	out := cluster.Attempt{ID: a.ID, TaskID: taskID, JobID: jobID, Type: cluster.TaskType(a.Type), State: a.State,
		NodeHTTPAddress: cluster.HTTPHostPort(a.NodeHTTPAddress), Rack: a.Rack, StartTime: msTime(int64(a.StartTime)), FinishTime: msTime(int64(a.FinishTime)),
		Elapsed: time.Duration(a.ElapsedTime) * time.Millisecond}
	if out.Elapsed == 0 && a.FinishTime > a.StartTime {
		out.Elapsed = time.Duration(a.FinishTime-a.StartTime) * time.Millisecond
	}
	out.ShuffleElapsed = time.Duration(a.ElapsedShuffleTime) * time.Millisecond
	out.MergeElapsed = time.Duration(a.ElapsedMergeTime) * time.Millisecond
	out.ReduceElapsed = time.Duration(a.ElapsedReduceTime) * time.Millisecond
	return out
}

func (c *Client) attemptBytesRead(ctx context.Context, b jobBase, jobID, taskID, attemptID string) (int64, error) {
	n, _, err := c.attemptCounters(ctx, b, jobID, taskID, attemptID)
	return n, err
}

// attemptCounters returns an attempt's HDFS_BYTES_READ and CPU_MILLISECONDS.
func (c *Client) attemptCounters(ctx context.Context, b jobBase, jobID, taskID, attemptID string) (int64, time.Duration, error) {
	var body attemptCountersJSON
	if err := c.getJSON(ctx, b.root+"/jobs/"+jobID+"/tasks/"+taskID+"/attempts/"+attemptID+"/counters", nil, &body); err != nil {
		return 0, 0, err
	}
	var bytes int64
	var cpu time.Duration
	for _, g := range body.Counters.Groups {
		for _, ct := range g.Counter {
			switch ct.Name {
			case "HDFS_BYTES_READ":
				bytes = int64(ct.Value)
			case "CPU_MILLISECONDS":
				cpu = time.Duration(ct.Value) * time.Millisecond
			}
		}
	}
	return bytes, cpu, nil
}

func goneReason(amErr error) string {
	var re *RemoteError
	if errors.As(amErr, &re) && re.Location != "" {
		return fmt.Sprintf("%d to %s", re.Status, re.Location)
	}
	if errors.As(amErr, &re) {
		return fmt.Sprint(re.Status)
	}
	return "unreadable"
}

// speculative marks the attempts that started while another attempt of the
// same task was running: speculative copies. An attempt that started after
// the previous one ended (it was preempted or failed) is a re-run, not a
// copy, and its time is a real measurement. JobHistory lists a task's
// attempts in no fixed order (recorded: _2, _1, _0), so the list index
// says nothing.
func speculative(atts []attemptJSON) []bool {
	out := make([]bool, len(atts))
	for i, a := range atts {
		for j, o := range atts {
			if i == j {
				continue
			}
			// o began first (ties: the lower attempt id) and had not ended
			// when a began.
			first := o.StartTime < a.StartTime || o.StartTime == a.StartTime && o.ID < a.ID
			running := o.FinishTime <= 0 || o.FinishTime > a.StartTime
			if first && running {
				out[i] = true
				break
			}
		}
	}
	return out
}

// defaultHistoryTasksPerJob is how many succeeded tasks of each type a
// finished job contributes to calibration. Rates are means per (class,
// node type) over many jobs; tens of attempts per job and type already
// place a job's spread, and a recurring class runs many times a day.
const defaultHistoryTasksPerJob = 64

// sampleTasks picks up to perType succeeded tasks of each type, evenly
// spaced over the job's task list (ids follow launch order, so the sample
// spans the job's run and the nodes it ran on); perType < 0 keeps all.
// Deterministic, so a re-read of the same job reads the same tasks.
func sampleTasks(tasks []taskJSON, perType int) []taskJSON {
	byType := map[string][]taskJSON{}
	var types []string
	for _, t := range tasks {
		if t.State != "SUCCEEDED" {
			continue
		}
		if _, seen := byType[t.Type]; !seen {
			types = append(types, t.Type)
		}
		byType[t.Type] = append(byType[t.Type], t)
	}
	var out []taskJSON
	for _, typ := range types {
		ts := byType[typ]
		if perType < 0 || len(ts) <= perType {
			out = append(out, ts...)
			continue
		}
		for i := 0; i < perType; i++ {
			out = append(out, ts[i*len(ts)/perType])
		}
	}
	return out
}
