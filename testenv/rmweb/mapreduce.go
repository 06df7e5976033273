package rmweb

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"sort"
	"strings"
)

// proxy serves the MapReduce AM's REST API behind the RM web proxy:
// /proxy/{appid}/ws/v1/mapreduce/... For a finished app the AM is gone and
// the proxy answers 302 to the JobHistory server's web page of the job
// (recorded: text/html, Location
// http://<jhs>/jobhistory/job/<job>/ws/v1/mapreduce/jobs — a web-UI path,
// not the REST API).
func (h *handler) proxy(w http.ResponseWriter, r *http.Request) {
	rest := strings.TrimPrefix(r.URL.Path, "/proxy/")
	appID, path, _ := strings.Cut(rest, "/")
	a, ok := h.s.App(appID)
	if !ok {
		notFound(w, "application "+appID+" not found")
		return
	}
	if a.ApplicationType == "SPARK" && h.o.SparkUI != nil {
		h.o.SparkUI.ServeHTTP(w, r)
		return
	}
	if !a.FinishedTime.IsZero() {
		jhs := h.o.JobHistoryAddress
		if jhs == "" {
			jhs = r.Host
		}
		jobID := "job_" + strings.TrimPrefix(appID, "application_")
		loc := "http://" + jhs + "/jobhistory/job/" + jobID + "/" + strings.TrimPrefix(path, "/")
		w.Header().Set("Location", loc)
		w.Header().Set("Content-Type", "text/html;charset=utf-8")
		w.WriteHeader(http.StatusFound)
		fmt.Fprintf(w, "<html>\n  <head>\n    <title>\n      Moved\n    </title>\n  </head>\n  <body>\n    <h1>\n      Moved\n    </h1>\n    <div>\n      Content has moved \n      <a href=\"%s\">here</a>\n    </div>\n  </body>\n</html>\n", html.EscapeString(loc))
		return
	}
	j, ok := h.s.Job(appID)
	if !ok || a.State != "RUNNING" {
		notFound(w, "application "+appID+" has no running MapReduce ApplicationMaster")
		return
	}
	path = strings.Trim(path, "/")
	switch {
	case path == "ws/v1/mapreduce" || path == "ws/v1/mapreduce/info":
		writeJSON(w, map[string]any{"info": map[string]any{"appId": a.ID, "name": j.Name, "user": j.User, "startedOn": ms(j.StartTime), "elapsedTime": h.s.Now().Sub(j.StartTime).Milliseconds()}})
	case path == "ws/v1/mapreduce/jobs":
		writeJSON(w, map[string]any{"jobs": map[string]any{"job": []map[string]any{h.jobInfo(j, true)}}})
	case strings.HasPrefix(path, "ws/v1/mapreduce/jobs/"):
		h.jobResource(w, r, j, strings.TrimPrefix(path, "ws/v1/mapreduce/jobs/"))
	default:
		notFound(w, "no resource /"+path)
	}
}

func (h *handler) historyInfo(w http.ResponseWriter, r *http.Request) {
	_, build, _, on := h.o.buildVersion()
	writeJSON(w, map[string]any{"historyInfo": map[string]any{"startedOn": ms(h.s.ClusterStarted()), "hadoopVersion": h.o.version(),
		"hadoopBuildVersion": build, "hadoopVersionBuiltOn": on}})
}

// historyJobs serves /ws/v1/history/mapreduce/jobs with the user, state,
// queue, limit and started/finished time-range filters.
func (h *handler) historyJobs(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	num := func(k string) int64 {
		var n int64
		for _, c := range q.Get(k) {
			if c < '0' || c > '9' {
				return -1
			}
			n = n*10 + int64(c-'0')
		}
		if q.Get(k) == "" {
			return -1
		}
		return n
	}
	fb, fe, sb, se, limit := num("finishedTimeBegin"), num("finishedTimeEnd"), num("startedTimeBegin"), num("startedTimeEnd"), num("limit")
	jobs := h.s.FinishedJobs()
	sort.Slice(jobs, func(i, k int) bool { return jobs[i].FinishTime.Before(jobs[k].FinishTime) })
	var out []map[string]any
	for _, j := range jobs {
		f, s := ms(j.FinishTime), ms(j.StartTime)
		if (fb >= 0 && f < fb) || (fe >= 0 && f > fe) || (sb >= 0 && s < sb) || (se >= 0 && s > se) {
			continue
		}
		if u := q.Get("user"); u != "" && j.User != u {
			continue
		}
		if st := q.Get("state"); st != "" && j.State != st {
			continue
		}
		if qu := q.Get("queue"); qu != "" && strings.TrimPrefix(j.Queue, "root.") != strings.TrimPrefix(qu, "root.") {
			continue
		}
		out = append(out, h.jobInfo(j, false)) // the list's subset of a job
		if limit >= 0 && int64(len(out)) >= limit {
			break
		}
	}
	writeJSON(w, map[string]any{"jobs": map[string]any{"job": out}})
}

func (h *handler) historyJob(w http.ResponseWriter, r *http.Request) {
	rest := strings.Trim(strings.TrimPrefix(r.URL.Path, "/ws/v1/history/mapreduce/jobs/"), "/")
	jobID, _, _ := strings.Cut(rest, "/")
	// A job id is its application id with the "job" prefix (job_<ts>_<seq>).
	if j, ok := h.s.Job("application" + strings.TrimPrefix(jobID, "job")); ok && strings.HasPrefix(jobID, "job_") && !j.FinishTime.IsZero() {
		if j.HistoryUnloadable {
			historyUnloadable(w, j)
			return
		}
		h.jobResource(w, r, j, rest)
		return
	}
	notFound(w, "job, "+jobID+", is not found")
}

// jobInfo is a job as the AM (running) or JobHistory (finished) shows it;
// full adds the attempt counts, progress or phase averages and ACLs that the
// job resource has and JobHistory's jobs list leaves out.
func (h *handler) jobInfo(j Job, full bool) map[string]any {
	mt, mc, rt, rc := 0, 0, 0, 0
	mr, rr := 0, 0 // running
	var mapProgress, reduceProgress float64
	attempts := map[string]map[string]int{"MAP": {}, "REDUCE": {}} // type → state → attempts
	var mapMs, shuffleMs, mergeMs, reduceMs int64                  // succeeded attempts' phases
	for _, t := range j.Tasks {
		if t.Type == "MAP" {
			mt++
			mapProgress += t.Progress
			if t.State == "SUCCEEDED" {
				mc++
			}
			if t.State == "RUNNING" {
				mr++
			}
		} else {
			rt++
			reduceProgress += t.Progress
			if t.State == "SUCCEEDED" {
				rc++
			}
			if t.State == "RUNNING" {
				rr++
			}
		}
		if !full {
			continue
		}
		for _, a := range t.Attempts {
			attempts[t.Type][a.State]++
			if a.State != "SUCCEEDED" {
				continue
			}
			if t.Type == "MAP" {
				mapMs += ms(a.FinishTime) - ms(a.StartTime)
			} else {
				shuffleMs += ms(a.ShuffleFinish) - ms(a.StartTime)
				mergeMs += ms(a.MergeFinish) - ms(a.ShuffleFinish)
				reduceMs += ms(a.FinishTime) - ms(a.MergeFinish)
			}
		}
	}
	end := h.s.Now()
	if !j.FinishTime.IsZero() {
		end = j.FinishTime
	}
	// The recorded fields of each view: the AM's job has elapsedTime, no
	// submitTime; JobHistory's job has submitTime, no elapsedTime; its jobs
	// list neither uberized nor diagnostics. acls appear only with
	// mapreduce.cluster.acls.enabled, off here as on the recorded cluster.
	info := map[string]any{"id": j.ID, "name": j.Name, "queue": h.o.appQueue(j.Queue), "user": j.User, "state": j.State,
		"startTime": ms(j.StartTime), "finishTime": ms(j.FinishTime),
		"mapsTotal": mt, "mapsCompleted": mc, "reducesTotal": rt, "reducesCompleted": rc}
	if j.FinishTime.IsZero() { // the AM's view (MapredAppMasterRest.md) adds the live counts
		info["elapsedTime"] = end.Sub(j.StartTime).Milliseconds()
		info["mapsRunning"], info["reducesRunning"] = mr, rr
		info["mapsPending"], info["reducesPending"] = mt-mc-mr, rt-rc-rr
	} else {
		info["submitTime"] = ms(j.SubmitTime)
	}
	if !full {
		return info
	}
	info["uberized"], info["diagnostics"] = false, ""
	for typ, prefix := range map[string]string{"MAP": "Map", "REDUCE": "Reduce"} {
		n := attempts[typ]
		info["failed"+prefix+"Attempts"], info["killed"+prefix+"Attempts"], info["successful"+prefix+"Attempts"] = n["FAILED"], n["KILLED"], n["SUCCEEDED"]
		if j.FinishTime.IsZero() {
			info["new"+prefix+"Attempts"], info["running"+prefix+"Attempts"] = n["NEW"]+n["STARTING"], n["RUNNING"]+n["COMMIT_PENDING"]
		}
	}
	if j.FinishTime.IsZero() { // JobReport's map and reduce progress, in percent
		info["mapProgress"], info["reduceProgress"] = avg(mapProgress, mt, 100), avg(reduceProgress, rt, 100)
	} else { // JobHistory's averages over the succeeded attempts, in ms
		nm, nr := int64(attempts["MAP"]["SUCCEEDED"]), int64(attempts["REDUCE"]["SUCCEEDED"])
		info["avgMapTime"], info["avgShuffleTime"] = div(mapMs, nm), div(shuffleMs, nr)
		info["avgMergeTime"], info["avgReduceTime"] = div(mergeMs, nr), div(reduceMs, nr)
	}
	return info
}

func avg(sum float64, n int, empty float64) float64 {
	if n == 0 {
		return empty
	}
	return sum / float64(n)
}

func div(sum, n int64) int64 {
	if n == 0 {
		return 0
	}
	return sum / n
}

// jobResource serves jobs/{jobid}[/counters|/conf|/tasks[/{taskid}[/attempts[/{attemptid}[/counters]]]]].
func (h *handler) jobResource(w http.ResponseWriter, r *http.Request, j Job, rest string) {
	parts := strings.Split(rest, "/")
	if parts[0] != j.ID {
		notFound(w, "job, "+parts[0]+", is not found")
		return
	}
	if len(parts) == 1 {
		writeJSON(w, map[string]any{"job": h.jobInfo(j, true)})
		return
	}
	switch parts[1] {
	case "jobattempts":
		// The MR AM's attempts: one, on the AM container (recorded). The
		// AM links its NM's log page, JobHistory its own aggregated logs.
		a, _ := h.s.App(j.AppID)
		logs := "http://" + a.AMHostHTTPAddress + "/node/containerlogs/" + a.AMContainerID + "/" + j.User
		if !j.FinishTime.IsZero() {
			jhs := h.o.JobHistoryAddress
			if jhs == "" {
				jhs = r.Host
			}
			logs = "http://" + jhs + "/jobhistory/logs/" + a.AMNodeID + "/" + a.AMContainerID + "/" + j.ID + "/" + j.User
		}
		writeJSON(w, map[string]any{"jobAttempts": map[string]any{"jobAttempt": []map[string]any{{"nodeHttpAddress": a.AMHostHTTPAddress,
			"nodeId": a.AMNodeID, "id": 1, "startTime": ms(a.LaunchTime), "containerId": a.AMContainerID, "logsLink": logs}}}})
		return
	case "counters":
		writeJSON(w, map[string]any{"jobCounters": map[string]any{"id": j.ID, "counterGroup": counterGroups(j.Counters, "totalCounterValue")}})
		return
	case "conf":
		var props []map[string]any
		keys := make([]string, 0, len(j.Conf))
		for k := range j.Conf {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			props = append(props, map[string]any{"name": k, "value": j.Conf[k], "source": []string{"job.xml"}})
		}
		writeJSON(w, map[string]any{"conf": map[string]any{"path": "hdfs://namenode:8020/tmp/hadoop-yarn/staging/" + j.User + "/.staging/" + j.ID + "/job.xml", "property": props}})
		return
	case "tasks":
	default:
		notFound(w, "no resource "+r.URL.Path)
		return
	}
	if len(parts) == 2 {
		typ := r.URL.Query().Get("type")
		var out []map[string]any
		for _, t := range j.Tasks {
			if (typ == "m" && t.Type != "MAP") || (typ == "r" && t.Type != "REDUCE") {
				continue
			}
			out = append(out, h.taskInfo(t))
		}
		writeJSON(w, map[string]any{"tasks": map[string]any{"task": out}})
		return
	}
	var task *Task
	for i := range j.Tasks {
		if j.Tasks[i].ID == parts[2] {
			task = &j.Tasks[i]
		}
	}
	if task == nil {
		notFound(w, "task not found with id "+parts[2])
		return
	}
	if len(parts) == 3 {
		writeJSON(w, map[string]any{"task": h.taskInfo(*task)})
		return
	}
	if parts[3] == "counters" {
		writeJSON(w, map[string]any{"jobTaskCounters": map[string]any{"id": task.ID, "taskCounterGroup": []any{}}})
		return
	}
	if parts[3] != "attempts" {
		notFound(w, "no resource "+r.URL.Path)
		return
	}
	if len(parts) == 4 {
		var out []map[string]any
		for _, at := range task.Attempts {
			out = append(out, h.attemptInfo(at))
		}
		writeJSON(w, map[string]any{"taskAttempts": map[string]any{"taskAttempt": out}})
		return
	}
	for _, at := range task.Attempts {
		if at.ID != parts[4] {
			continue
		}
		if len(parts) == 5 {
			writeJSON(w, map[string]any{"taskAttempt": h.attemptInfo(at)})
			return
		}
		if parts[5] == "counters" {
			writeJSON(w, map[string]any{"jobTaskAttemptCounters": map[string]any{"id": at.ID, "taskAttemptCounterGroup": counterGroups(at.Counters, "value")}})
			return
		}
	}
	notFound(w, "task attempt not found with id "+parts[4])
}

func (h *handler) taskInfo(t Task) map[string]any {
	end := h.s.Now()
	if !t.FinishTime.IsZero() {
		end = t.FinishTime
	}
	el := int64(0)
	if !t.StartTime.IsZero() {
		el = end.Sub(t.StartTime).Milliseconds()
	}
	info := map[string]any{"id": t.ID, "state": t.State, "type": t.Type, "successfulAttempt": t.SuccessfulAttempt, "progress": t.Progress,
		"startTime": ms(t.StartTime), "finishTime": ms(t.FinishTime), "elapsedTime": el}
	if t.FinishTime.IsZero() { // the AM's tasks carry their last status; JobHistory's do not
		st := "NEW"
		if n := len(t.Attempts); n > 0 {
			st = attemptStatus(t.Attempts[n-1])
		}
		info["status"] = st
	}
	return info
}

// attemptStatus is a task attempt's status line. The real one is the
// task's last progress report ("<split> > map", "Records R/W=12/1 >
// reduce"); the mini cluster has no records to count, so it reports the
// phase only — a stand-in with the same shape.
func attemptStatus(at Attempt) string {
	switch {
	case at.State == "NEW" || at.State == "STARTING" || at.StartTime.IsZero():
		return "NEW"
	case at.State == "RUNNING" && at.Type == "MAP":
		return "> map"
	case at.State == "RUNNING":
		return "> reduce"
	}
	return ""
}

func (h *handler) attemptInfo(at Attempt) map[string]any {
	el := int64(0)
	if !at.FinishTime.IsZero() {
		el = ms(at.FinishTime) - ms(at.StartTime)
	}
	m := map[string]any{"id": at.ID, "rack": at.Rack, "state": at.State, "type": at.Type, "assignedContainerId": at.ContainerID,
		"nodeHttpAddress": at.NodeHTTPAddress, "diagnostics": at.Diagnostics, "progress": at.Progress, "status": attemptStatus(at),
		"startTime": ms(at.StartTime), "finishTime": ms(at.FinishTime), "elapsedTime": el}
	if at.Type == "REDUCE" { // ReduceTaskAttemptInfo: every phase, 0 until it ended
		start, shuffle, merge, finish := ms(at.StartTime), ms(at.ShuffleFinish), ms(at.MergeFinish), ms(at.FinishTime)
		m["shuffleFinishTime"], m["mergeFinishTime"] = shuffle, merge
		m["elapsedShuffleTime"], m["elapsedMergeTime"], m["elapsedReduceTime"] = phase(start, shuffle), phase(shuffle, merge), phase(merge, finish)
	}
	return m
}

// phase is Times.elapsed(from, to, false) with -1 (not ended) as 0.
func phase(from, to int64) int64 {
	if from <= 0 || to <= 0 {
		return 0
	}
	return to - from
}

// counterGroups groups counters the way the MR REST API does.
func counterGroups(c map[string]int64, valueKey string) []map[string]any {
	fs, task, job := []map[string]any{}, []map[string]any{}, []map[string]any{}
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		e := map[string]any{"name": k, valueKey: c[k]}
		if valueKey == "totalCounterValue" {
			e["mapCounterValue"], e["reduceCounterValue"] = c[k], 0
		}
		switch {
		case strings.HasPrefix(k, "HDFS_") || strings.HasPrefix(k, "FILE_"):
			fs = append(fs, e)
		case strings.HasSuffix(k, "_MAPS") || strings.HasSuffix(k, "_REDUCES"):
			job = append(job, e) // JobCounter: DATA_LOCAL_MAPS, TOTAL_LAUNCHED_MAPS, ...
		default:
			task = append(task, e)
		}
	}
	groups := []map[string]any{
		{"counterGroupName": "org.apache.hadoop.mapreduce.FileSystemCounter", "counter": fs},
		{"counterGroupName": "org.apache.hadoop.mapreduce.TaskCounter", "counter": task},
	}
	if len(job) > 0 {
		groups = append(groups, map[string]any{"counterGroupName": "org.apache.hadoop.mapreduce.JobCounter", "counter": job})
	}
	return groups
}

// historyUnloadable answers as JobHistory does for a job whose history file
// it cannot load (recorded, jhs-unloadable/): 500, a RemoteException naming
// the .jhist in the done directory, Content-Type with the charset. The
// NameNode address in the path is the mini cluster's stand-in; the file
// name follows JobHistory's done-file naming (id-submit-user-name-finish-
// maps-reduces-state-queue-start).
func historyUnloadable(w http.ResponseWriter, j Job) {
	maps, reduces := 0, 0
	for _, t := range j.Tasks {
		if t.Type == "MAP" {
			maps++
		} else {
			reduces++
		}
	}
	f := j.FinishTime.UTC()
	file := fmt.Sprintf("hdfs://localhost:9000/tmp/hadoop-yarn/staging/history/done/%04d/%02d/%02d/000000/%s-%d-%s-%s-%d-%d-%d-%s-%s-%d.jhist",
		f.Year(), f.Month(), f.Day(), j.ID, ms(j.SubmitTime), j.User, j.Name, ms(j.FinishTime), maps, reduces, j.State,
		strings.TrimPrefix(j.Queue, "root."), ms(j.StartTime))
	w.Header().Set("Content-Type", "application/json;charset=utf-8")
	w.WriteHeader(http.StatusInternalServerError)
	json.NewEncoder(w).Encode(map[string]any{"RemoteException": map[string]string{
		"exception":     "YarnRuntimeException",
		"message":       "org.apache.hadoop.yarn.exceptions.YarnRuntimeException: Could not load history file " + file,
		"javaClassName": "org.apache.hadoop.yarn.exceptions.YarnRuntimeException"}})
}
