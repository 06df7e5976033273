package sim

import (
	"fmt"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/sparkweb"
)

var _ sparkweb.State = (*Cluster)(nil)

// SparkApp implements sparkweb.State.
func (c *Cluster) SparkApp(id string) (sparkweb.App, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, ok := c.appByID[id]
	if !ok || a.spark == nil || a.amNode == nil || !a.running && a.finish.IsZero() {
		return sparkweb.App{}, false // no driver up yet: the UI does not answer
	}
	return c.sparkView(a), true
}

// SparkApps implements sparkweb.State.
func (c *Cluster) SparkApps() []sparkweb.App {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []sparkweb.App
	for _, a := range c.apps {
		if a.spark != nil && a.amNode != nil && (a.running || !a.finish.IsZero()) {
			out = append(out, c.sparkView(a))
		}
	}
	return out
}

func (c *Cluster) containerID(a *app, seq int) string {
	return fmt.Sprintf("container_%d_%04d_01_%06d", c.clusterTS, a.seq, seq)
}

func (c *Cluster) sparkView(a *app) sparkweb.App {
	s := a.spark
	v := sparkweb.App{ID: a.id, Name: a.name, User: a.user, Start: a.start, End: a.finish, AMHost: a.amNode.host,
		AMContainer: c.containerID(a, 1), AMAdd: a.start}
	byExec := map[*executor]string{}
	for _, e := range s.executors {
		byExec[e] = c.containerID(a, e.seq)
		ev := sparkweb.Executor{ID: e.id, Host: e.node.host, Port: 40000 + e.seq, Cores: int(e.cores), GPUs: int(e.gpus),
			ContainerID: byExec[e], Add: e.add, Remove: e.remove, RemoveReason: e.removeReason, ActiveTasks: e.running,
			FailedTasks: e.failed, CompletedTasks: e.completed, TotalDurationMs: e.totalDurationMs, TotalInputBytes: e.totalInputBytes,
			MaxMemory: s.execSize.MemoryMB << 20 * 6 / 10}
		if e.released {
			ev.ActiveTasks = 0
		}
		v.Executors = append(v.Executors, ev)
	}
	for k, st := range s.stages {
		sv := sparkweb.Stage{ID: st.id, Name: st.spec.Name, NumTasks: len(st.tasks), Submission: st.submit,
			FirstLaunch: st.firstLaunch, Completion: st.done}
		switch {
		case !st.done.IsZero():
			sv.Status = "COMPLETE"
		case k == s.cur && !st.submit.IsZero():
			sv.Status = "ACTIVE"
		default:
			sv.Status = "PENDING"
		}
		for _, at := range st.attempts {
			tv := sparkweb.Task{TaskID: at.taskID, Index: at.task.idx, Attempt: at.attempt, Launch: at.launch, Finish: at.finish,
				ExecutorID: at.exec.id, Host: at.exec.node.host, Status: at.status, Locality: at.locality, Speculative: at.speculative,
				ErrorMessage: at.errorMessage, DeserializeMs: sparkDeserializeMs, ResultSerMs: sparkResultSerMs, DelayMs: sparkSchedulerDelayMs,
				ContainerID: byExec[at.exec], User: a.user}
			if at.status != "RUNNING" {
				// A killed or failed attempt reports what it ran.
				tv.RunMs = at.runMs
				if at.status != "SUCCESS" {
					tv.RunMs = max(0, at.finish.Sub(at.launch).Milliseconds()-sparkDeserializeMs)
				}
				// The model's run time is compute only (no I/O
				// wait): its CPU time is all of it.
				tv.CPUNs = tv.RunMs * 1e6
				if st.input {
					tv.InputBytes = at.task.bytes
				}
			}
			sv.Tasks = append(sv.Tasks, tv)
		}
		v.Stages = append(v.Stages, sv)
	}
	return v
}
