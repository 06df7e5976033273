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
	ID               string `json:"id"`
	Name             string `json:"name"`
	Queue            string `json:"queue"`
	User             string `json:"user"`
	State            string `json:"state"`
	StartTime        int64  `json:"startTime"`
	FinishTime       int64  `json:"finishTime"`
	MapsTotal        int    `json:"mapsTotal"`
	MapsCompleted    int    `json:"mapsCompleted"`
	ReducesTotal     int    `json:"reducesTotal"`
	ReducesCompleted int    `json:"reducesCompleted"`
	ReducesRunning   int    `json:"reducesRunning"` // AM only
}

type taskJSON struct {
	ID       string  `json:"id"`
	State    string  `json:"state"`
	Type     string  `json:"type"`
	Progress float64 `json:"progress"`
}

type attemptJSON struct {
	ID                 string `json:"id"`
	Rack               string `json:"rack"`
	State              string `json:"state"`
	Type               string `json:"type"`
	NodeHTTPAddress    string `json:"nodeHttpAddress"`
	StartTime          int64  `json:"startTime"`
	FinishTime         int64  `json:"finishTime"`
	ElapsedTime        int64  `json:"elapsedTime"`
	ShuffleFinishTime  int64  `json:"shuffleFinishTime"`
	MergeFinishTime    int64  `json:"mergeFinishTime"`
	ElapsedShuffleTime int64  `json:"elapsedShuffleTime"`
	ElapsedMergeTime   int64  `json:"elapsedMergeTime"`
	ElapsedReduceTime  int64  `json:"elapsedReduceTime"`
}

// jobBase is where a job's REST resources live: the AM through the RM
// proxy while it runs, JobHistory once it finished.
type jobBase struct {
	root string // ".../ws/v1/mapreduce" or ".../ws/v1/history/mapreduce"
}

func (c *Client) amBase(app cluster.App) (jobBase, error) {
	u := strings.TrimRight(app.TrackingURL, "/")
	if u == "" {
		u = c.ActiveRM() + "/proxy/" + app.ID
	}
	if _, err := url.Parse(u); err != nil {
		return jobBase{}, fmt.Errorf("app %s trackingUrl %q: %w", app.ID, app.TrackingURL, err)
	}
	return jobBase{root: u + "/ws/v1/mapreduce"}, nil
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
	var body struct {
		Jobs *struct {
			Job []jobJSON `json:"job"`
		} `json:"jobs"`
	}
	if err := c.getJSON(ctx, b.root+"/jobs", nil, &body); err != nil {
		var re *RemoteError
		if errors.As(err, &re) && re.Status == http.StatusNotFound && c.cfg.JHSAddress != "" {
			// The app finished between the apps listing and this call: its
			// AM is gone and the proxy answers 404; JobHistory has the job.
			return c.historyJob(ctx, app)
		}
		return nil, err
	}
	if body.Jobs == nil || len(body.Jobs.Job) == 0 {
		return nil, fmt.Errorf("GET %s/jobs: no job", b.root)
	}
	j := body.Jobs.Job[0].job()
	// Running maps' progress, for the remaining-time prediction.
	var tasks struct {
		Tasks *struct {
			Task []taskJSON `json:"task"`
		} `json:"tasks"`
	}
	q := url.Values{}
	q.Set("type", "m")
	if err := c.getJSON(ctx, b.root+"/jobs/"+j.ID+"/tasks", q, &tasks); err != nil {
		return nil, err
	}
	if tasks.Tasks != nil {
		for _, t := range tasks.Tasks.Task {
			if t.State == "RUNNING" && t.Type == "MAP" {
				j.RunningMaps = append(j.RunningMaps, t.Progress/100)
			}
		}
	}
	return &j, nil
}

func (j jobJSON) job() cluster.Job {
	return cluster.Job{ID: j.ID, Name: j.Name, State: j.State, StartTime: msTime(j.StartTime), FinishTime: msTime(j.FinishTime),
		MapsTotal: j.MapsTotal, MapsCompleted: j.MapsCompleted, ReducesTotal: j.ReducesTotal, ReducesCompleted: j.ReducesCompleted,
		ReducesRunning: j.ReducesRunning}
}

// historyJob reads an app's job from JobHistory (no running maps).
func (c *Client) historyJob(ctx context.Context, app cluster.App) (*cluster.Job, error) {
	b, err := c.jhsBase()
	if err != nil {
		return nil, err
	}
	id := "job_" + strings.TrimPrefix(app.ID, "application_")
	var body struct {
		Job *jobJSON `json:"job"`
	}
	if err := c.getJSON(ctx, b.root+"/jobs/"+id, nil, &body); err != nil {
		return nil, fmt.Errorf("AM of %s gone (404) and JobHistory: %w", app.ID, err)
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
func (c *Client) FinishedJobs(ctx context.Context, since time.Time) ([]cluster.App, error) {
	b, err := c.jhsBase()
	if err != nil {
		return nil, err
	}
	q := url.Values{}
	if !since.IsZero() {
		q.Set("finishedTimeBegin", strconv.FormatInt(since.UnixMilli()+1, 10))
	}
	var body struct {
		Jobs *struct {
			Job []jobJSON `json:"job"`
		} `json:"jobs"`
	}
	if err := c.getJSON(ctx, b.root+"/jobs", q, &body); err != nil {
		return nil, err
	}
	if body.Jobs == nil {
		return nil, nil
	}
	var out []cluster.App
	for _, jj := range body.Jobs.Job {
		job := jj.job()
		atts, tags, err := c.jobAttempts(ctx, b, jj.ID)
		if err != nil {
			return out, err
		}
		job.Attempts = atts
		appID := "application_" + strings.TrimPrefix(jj.ID, "job_")
		q := jj.Queue
		if !strings.HasPrefix(q, "root.") {
			q = "root." + q
		}
		out = append(out, cluster.App{ID: appID, Name: jj.Name, User: jj.User, Queue: q, State: cluster.AppFinished,
			Type: "MAPREDUCE", Tags: tags, StartedTime: job.StartTime, FinishedTime: job.FinishTime, Job: &job})
	}
	return out, nil
}

// jobAttempts reads a job's tasks and their successful attempts (with the
// HDFS_BYTES_READ counter for maps), and the job's tags from its conf.
func (c *Client) jobAttempts(ctx context.Context, b jobBase, jobID string) ([]cluster.Attempt, []string, error) {
	var conf struct {
		Conf struct {
			Property []struct {
				Name  string `json:"name"`
				Value string `json:"value"`
			} `json:"property"`
		} `json:"conf"`
	}
	var tags []string
	if err := c.getJSON(ctx, b.root+"/jobs/"+jobID+"/conf", nil, &conf); err == nil {
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
	var tasks struct {
		Tasks *struct {
			Task []taskJSON `json:"task"`
		} `json:"tasks"`
	}
	if err := c.getJSON(ctx, b.root+"/jobs/"+jobID+"/tasks", nil, &tasks); err != nil {
		return nil, nil, err
	}
	if tasks.Tasks == nil {
		return nil, tags, nil
	}
	var out []cluster.Attempt
	for _, t := range tasks.Tasks.Task {
		if t.State != "SUCCEEDED" {
			continue
		}
		var atts struct {
			TaskAttempts *struct {
				TaskAttempt []attemptJSON `json:"taskAttempt"`
			} `json:"taskAttempts"`
		}
		if err := c.getJSON(ctx, b.root+"/jobs/"+jobID+"/tasks/"+t.ID+"/attempts", nil, &atts); err != nil {
			return nil, nil, err
		}
		if atts.TaskAttempts == nil {
			continue
		}
		for i, a := range atts.TaskAttempts.TaskAttempt {
			ca := a.attempt(t.ID, jobID)
			ca.Speculative = i > 0
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
	host, _, _ := strings.Cut(a.NodeHTTPAddress, ":")
	out := cluster.Attempt{ID: a.ID, TaskID: taskID, JobID: jobID, Type: cluster.TaskType(a.Type), State: a.State,
		NodeHTTPAddress: a.NodeHTTPAddress, NodeID: host, Rack: a.Rack, StartTime: msTime(a.StartTime), FinishTime: msTime(a.FinishTime),
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
	var body struct {
		Counters struct {
			Groups []struct {
				Name    string `json:"counterGroupName"`
				Counter []struct {
					Name  string `json:"name"`
					Value int64  `json:"value"`
				} `json:"counter"`
			} `json:"taskAttemptCounterGroup"`
		} `json:"jobTaskAttemptCounters"`
	}
	if err := c.getJSON(ctx, b.root+"/jobs/"+jobID+"/tasks/"+taskID+"/attempts/"+attemptID+"/counters", nil, &body); err != nil {
		return 0, 0, err
	}
	var bytes int64
	var cpu time.Duration
	for _, g := range body.Counters.Groups {
		for _, ct := range g.Counter {
			switch ct.Name {
			case "HDFS_BYTES_READ":
				bytes = ct.Value
			case "CPU_MILLISECONDS":
				cpu = time.Duration(ct.Value) * time.Millisecond
			}
		}
	}
	return bytes, cpu, nil
}
