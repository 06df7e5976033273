package yarn

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// The recorded cluster: two NodeManagers on two hosts (cpunode:45452 with
// web port 8043, gpunode:45451 labelled gpu, non-exclusive), queues
// root.crypto and root.sort at 50/50 in both partitions; apps 0003 (crypto,
// default label expression gpu) and 0004 (sort) running 7 containers each.
const (
	realApp3 = "application_1795412916926_0003"
	realApp4 = "application_1795412916926_0004"
	realJob4 = "job_1795412916926_0004"
)

// realRunningRM routes the RM and AM-proxy paths a snapshot reads to the
// running/ recordings.
func realRunningRM(t *testing.T, rp *replay) {
	t.Helper()
	rp.file(t, "/ws/v1/cluster/nodes", "running/rm_nodes")
	rp.file(t, "/ws/v1/cluster/metrics", "running/rm_metrics")
	rp.file(t, "/ws/v1/cluster/scheduler", "running/rm_scheduler")
	rp.file(t, "/ws/v1/cluster/apps", "running/rm_apps_states_RUNNING")
	rp.file(t, "/ws/v1/cluster/get-node-labels", "running/rm_get-node-labels")
	rp.file(t, "/ws/v1/cluster/scheduler-conf/version", "running/rm_scheduler-conf_version")
	for _, app := range []string{realApp3, realApp4} {
		attempt := "appattempt_" + strings.TrimPrefix(app, "application_") + "_000001"
		job := "job_" + strings.TrimPrefix(app, "application_")
		rp.file(t, "/ws/v1/cluster/apps/"+app+"/appattempts", "running/rm_app_"+app+"_appattempts")
		rp.file(t, "/ws/v1/cluster/apps/"+app+"/appattempts/"+attempt+"/containers", "running/rm_app_"+app+"_containers")
		rp.file(t, "/proxy/"+app+"/ws/v1/mapreduce/jobs", "running/am_"+app+"_jobs")
		rp.file(t, "/proxy/"+app+"/ws/v1/mapreduce/jobs/"+job+"/tasks", "running/am_"+app+"_tasks")
		rp.file(t, "/proxy/"+app+"/ws/v1/mapreduce/jobs/"+job+"/conf", "running/am_"+app+"_conf")
	}
}

// A whole snapshot from the real RM, through a stopped first RM: every
// container is counted (the 3.3.6 containers list has string numbers),
// apps' queues resolve from short names to paths, per-partition usage is
// kept, and the AMs are read through the answering RM's /proxy/ — not the
// recorded trackingUrl host (localhost:8088, where nothing listens here).
func TestReal336Observe(t *testing.T) {
	rp := newReplay(t)
	realRunningRM(t, rp)
	dead := deadRM(t)
	c, err := New(Config{RMAddresses: []string{dead, rp.URL}, Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := c.Observe(context.Background(), ObserveOptions{Jobs: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Errors) != 0 {
		t.Fatalf("snapshot errors: %+v", snap.Errors)
	}
	if u := rp.unexpected(); len(u) != 0 {
		t.Errorf("unrecorded requests: %v", u)
	}
	if snap.RM != rp.URL || c.ActiveRM() != rp.URL {
		t.Errorf("RM %s / active %s, want the live RM %s", snap.RM, c.ActiveRM(), rp.URL)
	}
	// The RM's Date header of the last answer is the snapshot's clock.
	if snap.Time.Year() != 2026 || snap.Time.Month() != time.November || snap.Time.Day() != 23 {
		t.Errorf("snapshot time %v, want the recorded Date (2026-11-23)", snap.Time)
	}
	// The leaf queues' configured resources carry the scheduler's minimum
	// allocation (recorded: 256 MB, 1 vcore): the planning slot's fallback.
	if m := snap.MinimumAllocation(); m.MemoryMB != 256 || m.VCores != 1 {
		t.Errorf("minimum allocation %+v, want 256 MB / 1 vcore as recorded", m)
	}
	if snap.ConfVersion != 2 { // {"versionID":"2"}
		t.Errorf("conf version %d, want 2", snap.ConfVersion)
	}
	nodes := snap.NodeByID()
	gpu, cpu := nodes["gpunode:45451"], nodes["cpunode:45452"]
	if gpu.Partition != "gpu" || gpu.HTTPAddress != "gpunode:8042" || gpu.Total.MemoryMB != 4096 || gpu.Used.MemoryMB != 3840 || gpu.NumContainers != 7 {
		t.Errorf("gpunode %+v", gpu)
	}
	if cpu.Partition != "" || cpu.HTTPAddress != "cpunode:8043" || cpu.Total.VCores != 4 || cpu.Used.VCores != 7 {
		t.Errorf("cpunode %+v", cpu)
	}
	if p, ok := snap.Partition("gpu"); !ok || p.Exclusive || len(p.NodeIDs) != 1 || p.Total.MemoryMB != 4096 {
		t.Errorf("gpu partition %+v (exclusivity \"false\" as a string)", p)
	}
	for _, path := range []string{"root.crypto", "root.sort"} {
		q, ok := snap.Queue(path)
		if !ok || !q.Leaf || q.ByPartition["gpu"].Capacity != 50 || q.ByPartition[""].Capacity != 50 || q.ByPartition[""].MaxCapacity != 100 ||
			!reflect.DeepEqual(q.AccessibleLabels, []string{"gpu"}) || q.NumContainers != 7 {
			t.Errorf("queue %s: %+v", path, q)
		}
	}
	if q, _ := snap.Queue("root.crypto"); q.DefaultLabelExpression != "gpu" {
		t.Errorf("root.crypto default label expression %q, want gpu", q.DefaultLabelExpression)
	}
	apps := map[string]cluster.App{}
	for _, a := range snap.Apps {
		apps[a.ID] = a
	}
	a3, a4 := apps[realApp3], apps[realApp4]
	if a3.Queue != "root.crypto" || a4.Queue != "root.sort" {
		t.Errorf("queues %q, %q: want the short names crypto/sort resolved to paths", a3.Queue, a4.Queue)
	}
	if !reflect.DeepEqual(a3.ContainersByNode, map[string]int{"gpunode:45451": 7}) || !reflect.DeepEqual(a4.ContainersByNode, map[string]int{"cpunode:45452": 7}) {
		t.Errorf("containers by node: 0003 %v, 0004 %v", a3.ContainersByNode, a4.ContainersByNode)
	}
	// masterNodeId: the AM container's node (progress takes it off S_j).
	if a3.AMNodeID != "gpunode:45451" || a4.AMNodeID != "cpunode:45452" {
		t.Errorf("AM nodes: 0003 %q, 0004 %q", a3.AMNodeID, a4.AMNodeID)
	}
	if a4.Allocated.MemoryMB != 3840 || a4.RunningContainers != 7 || a4.Progress != 12.503749 || !reflect.DeepEqual(a4.Tags, []string{"jobclass=sort"}) {
		t.Errorf("app 0004 %+v", a4)
	}
	// resourceInfo.resourceUsagesByPartition: 0003 runs on the gpu node only.
	want3 := map[string]cluster.AppPartitionUsage{
		"":    {},
		"gpu": {Used: cluster.Resource{MemoryMB: 3840, VCores: 7}, Pending: cluster.Resource{MemoryMB: 3072, VCores: 6}, AMUsed: cluster.Resource{MemoryMB: 768, VCores: 1}},
	}
	if !reflect.DeepEqual(a3.UsageByPartition, want3) {
		t.Errorf("0003 usage by partition %+v, want %+v", a3.UsageByPartition, want3)
	}
	if u := a4.UsageByPartition[""]; u.Used.MemoryMB != 3840 || u.Pending.MemoryMB != 3072 || u.AMUsed.MemoryMB != 768 || u.Reserved.MemoryMB != 0 {
		t.Errorf("0004 default-partition usage %+v", u)
	}
	for _, a := range []cluster.App{a3, a4} {
		if a.Job == nil || a.Job.MapsTotal != 12 || a.Job.MapsCompleted != 0 || a.Job.ReducesTotal != 1 || len(a.Job.RunningMaps) != 6 {
			t.Errorf("app %s job %+v", a.ID, a.Job)
		}
		// mapred-site's mapreduce.map.memory.mb=512, vcores mapred-default's 1.
		if a.Job != nil && a.Job.ContainerSize != (cluster.Resource{MemoryMB: 512, VCores: 1}) {
			t.Errorf("app %s map size %+v, want 512 MB 1 vcore from its conf", a.ID, a.Job.ContainerSize)
		}
	}
	// 0004's running maps: five at 66.7 %, one just started (0.0).
	rm := append([]float64(nil), a4.Job.RunningMaps...)
	sort.Float64s(rm)
	if rm[0] != 0 || rm[5] != 0.667 {
		t.Errorf("0004 running maps %v", rm)
	}
	// Each running map's elapsedTime rides beside its progress: the one
	// at 0.0 has run 27,592 ms (no progress reported yet), the others
	// 27.5-27.7 s.
	if e := a4.Job.RunningMapsElapsed; len(e) != len(a4.Job.RunningMaps) {
		t.Errorf("0004 running maps' elapsed %v for progress %v", e, a4.Job.RunningMaps)
	} else {
		for i, p := range a4.Job.RunningMaps {
			if (p == 0 && e[i] != 27.592) || e[i] < 27.5 || e[i] > 27.7 {
				t.Errorf("0004 running map %d: progress %v elapsed %v s", i, p, e[i])
			}
		}
	}
	for _, app := range []string{realApp3, realApp4} {
		if n := rp.count("GET /proxy/" + app + "/ws/v1/mapreduce/jobs"); n != 1 {
			t.Errorf("AM of %s read %d times through the live RM's proxy, want 1", app, n)
		}
	}
}

// A finished app: its AM proxy answers 302 (text/html) to a JobHistory
// *web* page; the client does not follow it, reads JobHistory's REST API
// instead, and the finished app's containers are `{}`.
func TestReal336FinishedApp(t *testing.T) {
	rp := newReplay(t)
	rp.file(t, "/proxy/"+realApp4+"/ws/v1/mapreduce/jobs", "finished/am_finished_jobs")
	rp.file(t, "/ws/v1/history/mapreduce/jobs/"+realJob4, "finished/jhs_job")
	rp.file(t, "/ws/v1/cluster/apps/"+realApp4+"/appattempts", "running/rm_app_"+realApp4+"_appattempts")
	rp.file(t, "/ws/v1/cluster/apps/"+realApp4+"/appattempts/appattempt_1795412916926_0004_000001/containers", "finished/rm_app_finished_containers")
	c, err := New(Config{RMAddresses: []string{rp.URL}, JHSAddress: rp.URL, Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	j, err := c.RunningJob(ctx, cluster.App{ID: realApp4, Type: "MAPREDUCE", TrackingURL: "http://localhost:8088/proxy/" + realApp4 + "/"})
	if err != nil {
		t.Fatal(err)
	}
	if j.ID != realJob4 || j.State != "SUCCEEDED" || j.MapsCompleted != 12 || j.ReducesCompleted != 1 ||
		!j.FinishTime.Equal(time.UnixMilli(1795413377800)) || len(j.RunningMaps) != 0 {
		t.Errorf("job from JobHistory %+v", j)
	}
	if rp.count("GET /proxy/"+realApp4+"/ws/v1/mapreduce/jobs") != 1 || rp.count("GET /ws/v1/history/mapreduce/jobs/"+realJob4) != 1 {
		t.Errorf("hits %v", rp.hits)
	}
	byNode, err := c.Containers(ctx, realApp4)
	if err != nil || len(byNode) != 0 {
		t.Errorf("finished app's containers: %v, %v; want none and no error", byNode, err)
	}
	if u := rp.unexpected(); len(u) != 0 {
		t.Errorf("unrecorded requests (a web page followed?): %v", u)
	}

	// Without a JobHistory address the redirect surfaces, naming where it
	// led: not decoded as JSON, not followed.
	c2, _ := New(Config{RMAddresses: []string{rp.URL}, Retries: -1})
	_, err = c2.RunningJob(ctx, cluster.App{ID: realApp4, Type: "MAPREDUCE"})
	var re *RemoteError
	if !errors.As(err, &re) || re.Status != 302 || re.Location != "http://localhost:19888/jobhistory/job/"+realJob4+"/ws/v1/mapreduce/jobs" {
		t.Errorf("no JobHistory: %#v", err)
	}
}

// JobHistory's view of the finished job, as the learner reads it: the
// jobs list and tasks list are the recorded ones narrowed to what was
// recorded further down (job 0004; tasks m_000000 and r_000000).
func TestReal336FinishedJobs(t *testing.T) {
	rp := newReplay(t)
	const root = "/ws/v1/history/mapreduce/jobs"
	narrow := func(name, outer, inner string, keep func(id string) bool) []byte {
		rec := loadRecorded(t, name)
		var body map[string]map[string][]map[string]any
		if err := json.Unmarshal(rec.body, &body); err != nil {
			t.Fatal(err)
		}
		var kept []map[string]any
		for _, e := range body[outer][inner] {
			if keep(e["id"].(string)) {
				kept = append(kept, e)
			}
		}
		body[outer][inner] = kept
		b, _ := json.Marshal(body)
		return b
	}
	jobs := narrow("finished/jhs_jobs", "jobs", "job", func(id string) bool { return id == realJob4 })
	tasks := narrow("finished/jhs_job_tasks", "tasks", "task", func(id string) bool {
		return strings.HasSuffix(id, "_m_000000") || strings.HasSuffix(id, "_r_000000")
	})
	rp.handle(root, reply(200, "application/json", string(jobs)))
	rp.handle(root+"/"+realJob4+"/tasks", reply(200, "application/json", string(tasks)))
	rp.file(t, root+"/"+realJob4+"/conf", "finished/jhs_job_conf")
	rp.file(t, root+"/"+realJob4+"/tasks/task_1795412916926_0004_m_000000/attempts", "finished/jhs_task_attempts")
	rp.file(t, root+"/"+realJob4+"/tasks/task_1795412916926_0004_m_000000/attempts/attempt_1795412916926_0004_m_000000_0/counters", "finished/jhs_task_attempt_counters")
	rp.file(t, root+"/"+realJob4+"/tasks/task_1795412916926_0004_r_000000/attempts", "finished/jhs_reduce_attempts")
	c, err := New(Config{RMAddresses: []string{rp.URL}, JHSAddress: rp.URL, Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	apps, err := c.FinishedJobs(context.Background(), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if u := rp.unexpected(); len(u) != 0 {
		t.Errorf("unrecorded requests: %v", u)
	}
	if len(apps) != 1 {
		t.Fatalf("%d apps, want 1", len(apps))
	}
	a := apps[0]
	if a.ID != realApp4 || a.Queue != "root.sort" || a.User != "root" || !reflect.DeepEqual(a.Tags, []string{"jobclass=sort"}) || a.Job.MapsTotal != 12 {
		t.Errorf("app %+v", a)
	}
	if len(a.Job.Attempts) != 2 {
		t.Fatalf("attempts %+v", a.Job.Attempts)
	}
	m, r := a.Job.Attempts[0], a.Job.Attempts[1]
	if m.Type != cluster.TaskMap {
		m, r = r, m
	}
	if m.ID != "attempt_1795412916926_0004_m_000000_0" || m.State != "SUCCEEDED" || m.NodeHTTPAddress != "cpunode:8043" || m.Elapsed != 46330*time.Millisecond ||
		m.HDFSBytesRead != 105 || m.Speculative {
		t.Errorf("map attempt %+v", m)
	}
	if r.Type != cluster.TaskReduce || r.ShuffleElapsed != 2857*time.Millisecond || r.MergeElapsed != 24*time.Millisecond || r.ReduceElapsed != 286*time.Millisecond {
		t.Errorf("reduce attempt %+v", r)
	}
	// Item 6: the attempt's node is found by its web address host:port
	// among the RM's nodes (cpunode's NodeManager serves on 8043).
	var nodes nodesJSON
	mustDecode(t, "running/rm_nodes", &nodes)
	var cn []cluster.Node
	for _, n := range nodes.Nodes.Node {
		cn = append(cn, cluster.Node{ID: n.ID, Host: n.NodeHostName, HTTPAddress: cluster.HTTPHostPort(n.NodeHTTPAddress)})
	}
	placed := cluster.WithAttemptNodes(a, cn)
	if placed.Job.Attempts[0].NodeID != "cpunode:45452" || placed.Job.Attempts[1].NodeID != "cpunode:45452" {
		t.Errorf("attempt nodes %q %q, want cpunode:45452", placed.Job.Attempts[0].NodeID, placed.Job.Attempts[1].NodeID)
	}
	if a.Job.Attempts[0].NodeID != "" {
		t.Errorf("WithAttemptNodes changed its input")
	}
}

// Preemption (preemption/): a preempted map attempt (_0, KILLED), the task's
// re-run (_1, SUCCEEDED, started after _0 ended) and a losing speculative
// copy (_2, KILLED, started while _1 ran). JobHistory lists them _2, _1,
// _0. The re-run is not speculative: it is a rate sample.
func TestReal336PreemptedTaskAttempts(t *testing.T) {
	var body taskAttemptsJSON
	mustDecode(t, "preemption/jhs_attempts_of_a_preempted_task.json", &body)
	atts := body.TaskAttempts.TaskAttempt
	spec := speculative(atts)
	got := map[string]bool{}
	for i, a := range atts {
		got[a.ID[len(a.ID)-2:]+" "+a.State] = spec[i]
	}
	want := map[string]bool{"_2 KILLED": true, "_1 SUCCEEDED": false, "_0 KILLED": false}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("speculative %v, want %v", got, want)
	}
	if atts[2].Diagnostics != "Container preempted by scheduler" || !strings.HasPrefix(atts[0].Diagnostics, "Speculation: ") {
		t.Errorf("diagnostics %q / %q", atts[2].Diagnostics, atts[0].Diagnostics)
	}
	// The classic case stays speculative: a copy started during the
	// original, whichever wins.
	copyWins := []attemptJSON{{ID: "a_0", StartTime: 100, FinishTime: 500, State: "KILLED"}, {ID: "a_1", StartTime: 200, FinishTime: 400, State: "SUCCEEDED"}}
	if s := speculative(copyWins); s[0] || !s[1] {
		t.Errorf("copy that won: %v, want [false true]", s)
	}
}

func mustDecode(t *testing.T, name string, v any) {
	t.Helper()
	if err := json.Unmarshal(loadRecorded(t, name).body, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// Every recorded response the client has a type for decodes, with values
// read from the files. Files without a client type are listed with why, so
// a new recording is noticed.
func TestReal336EveryFileDecodes(t *testing.T) {
	checks := map[string]func(t *testing.T, name string){
		"running/rm_apps":                checkApps(4, realApp4, "sort"),
		"running/rm_apps_states_RUNNING": checkApps(2, realApp4, "sort"),
		"running/rm_apps_limit_1":        checkApps(1, realApp4, "sort"),
		"preemption/rm_apps_running_during_preemption.json": func(t *testing.T, name string) {
			var b appsJSON
			mustDecode(t, name, &b)
			a := b.Apps.App[0].app()
			if a.ID != "application_1795415892786_0001" || a.Queue != "crypto" || a.UsageByPartition[""].Used.MemoryMB != 2816 || a.UsageByPartition["gpu"].Used.MemoryMB != 2048 {
				t.Errorf("%+v", a)
			}
			// 2 containers, 1024 MB, 49,596 MB·s taken from the crypto job.
			want := cluster.AppPreemption{Resource: cluster.Resource{MemoryMB: 1024, VCores: 2}, NonAMContainers: 2, MemorySeconds: 49596, VCoreSeconds: 95}
			if a.Preempted == nil || *a.Preempted != want {
				t.Errorf("preempted %+v, want %+v", a.Preempted, want)
			}
			if b.Apps.App[1].app().Preempted != nil {
				t.Errorf("the sort job lost nothing: %+v", b.Apps.App[1].app().Preempted)
			}
		},
		"running/rm_app_" + realApp3:                  checkApp(realApp3, "crypto", "RUNNING"),
		"running/rm_app_" + realApp4:                  checkApp(realApp4, "sort", "RUNNING"),
		"finished/rm_app_finished":                    checkApp(realApp4, "sort", "FINISHED"),
		"running/rm_app_" + realApp3 + "_appattempts": checkAppAttempt("appattempt_1795412916926_0003_000001", "gpunode:45451"),
		"running/rm_app_" + realApp4 + "_appattempts": checkAppAttempt("appattempt_1795412916926_0004_000001", "cpunode:45452"),
		"running/rm_app_" + realApp3 + "_containers":  checkContainers(7, "gpunode:45451", "gpunode:8042"),
		"running/rm_app_" + realApp4 + "_containers":  checkContainers(7, "cpunode:45452", "cpunode:8043"),
		"finished/rm_app_finished_containers":         checkContainers(0, "", ""),
		"running/rm_nodes":                            checkNodes(2),
		"running/rm_nodes_states_RUNNING":             checkNodes(2),
		"running/127_0_0_1_8088_GET_ws_v1_cluster_nodes.json": func(t *testing.T, name string) {
			// Recorded before any job ran: nothing used.
			var b nodesJSON
			mustDecode(t, name, &b)
			if len(b.Nodes.Node) != 2 || b.Nodes.Node[0].UsedMemoryMB != 0 || b.Nodes.Node[0].TotalResource.resource().MemoryMB != 4096 {
				t.Errorf("%+v", b.Nodes.Node)
			}
		},
		"running/rm_nodes_gpunode_45451":                                    checkNode("gpunode:45451", "gpunode:8042", "gpu"),
		"running/127_0_0_1_8088_GET_ws_v1_cluster_nodes_gpunode_45451.json": checkNode("gpunode:45451", "gpunode:8042", "gpu"),
		"running/127_0_0_1_8088_GET_ws_v1_cluster_nodes_cpunode_45452.json": checkNode("cpunode:45452", "cpunode:8043", ""),
		"running/rm_scheduler":                                              checkScheduler(50),
		"preemption/rm_scheduler_during_preemption.json":                    checkScheduler(50),
		"running/rm_scheduler-conf_version": func(t *testing.T, name string) {
			var b struct {
				V jerseyInt `json:"versionID"`
			}
			mustDecode(t, name, &b)
			if b.V != 2 {
				t.Errorf("versionID %d", b.V)
			}
		},
		"running/rm_get-node-labels": func(t *testing.T, name string) {
			var b nodeLabelsJSON
			mustDecode(t, name, &b)
			if len(b.NodeLabelInfo) != 1 || b.NodeLabelInfo[0].Name != "gpu" || b.NodeLabelInfo[0].Exclusivity == nil || bool(*b.NodeLabelInfo[0].Exclusivity) {
				t.Errorf("%+v", b)
			}
		},
		"running/am_" + realApp3 + "_jobs":                 checkJobs(1, "job_1795412916926_0003", "RUNNING", 12, 0),
		"running/am_" + realApp4 + "_jobs":                 checkJobs(1, realJob4, "RUNNING", 12, 0),
		"finished/jhs_jobs":                                checkJobs(14, "job_1795410984314_0001", "SUCCEEDED", 8, 8),
		"finished/jhs_jobs_limit1":                         checkJobs(1, "job_1795410984314_0001", "SUCCEEDED", 8, 8),
		"finished/jhs_jobs_finishedTimeBegin":              checkJobs(14, "job_1795410984314_0001", "SUCCEEDED", 8, 8),
		"running/am_" + realApp3 + "_job":                  checkJob("job_1795412916926_0003", "RUNNING", 12, 0),
		"running/am_" + realApp4 + "_job":                  checkJob(realJob4, "RUNNING", 12, 0),
		"finished/jhs_job":                                 checkJob(realJob4, "SUCCEEDED", 12, 12),
		"preemption/jhs_job_with_preemption.json":          checkJob("job_1795415892786_0001", "SUCCEEDED", 30, 30),
		"running/am_" + realApp3 + "_tasks":                checkTasks(13, 6),
		"running/am_" + realApp4 + "_tasks":                checkTasks(13, 6),
		"finished/jhs_job_tasks":                           checkTasks(13, 0),
		"finished/jhs_job_tasks_r":                         checkTasks(1, 0),
		"running/am_" + realApp3 + "_task_attempts":        checkAttempts(1, "RUNNING", "gpunode:8042"),
		"running/am_" + realApp4 + "_task_attempts":        checkAttempts(1, "RUNNING", "cpunode:8043"),
		"finished/jhs_task_attempts":                       checkAttempts(1, "SUCCEEDED", "cpunode:8043"),
		"finished/jhs_reduce_attempts":                     checkAttempts(1, "SUCCEEDED", "cpunode:8043"),
		"preemption/jhs_attempts_of_a_preempted_task.json": checkAttempts(3, "KILLED", "cpunode:8043"),
		"finished/jhs_task_attempt": func(t *testing.T, name string) {
			var b struct {
				A attemptJSON `json:"taskAttempt"`
			}
			mustDecode(t, name, &b)
			if a := b.A.attempt("t", "j"); a.Elapsed != 46330*time.Millisecond || a.NodeHTTPAddress != "cpunode:8043" || a.Rack != "/default-rack" {
				t.Errorf("%+v", a)
			}
		},
		"finished/jhs_task_attempt_counters": func(t *testing.T, name string) {
			var b attemptCountersJSON
			mustDecode(t, name, &b)
			var got int64 = -1
			for _, g := range b.Counters.Groups {
				for _, c := range g.Counter {
					if c.Name == "HDFS_BYTES_READ" {
						got = int64(c.Value)
					}
				}
			}
			if got != 105 {
				t.Errorf("HDFS_BYTES_READ %d, want 105", got)
			}
		},
		"running/am_" + realApp4 + "_conf": checkConfTag("jobclass=sort"),
		"finished/jhs_job_conf":            checkConfTag("jobclass=sort"),
		"running/rm_metrics": func(t *testing.T, name string) {
			rp := newReplay(t)
			rp.file(t, "/ws/v1/cluster/metrics", name)
			c, _ := New(Config{RMAddresses: []string{rp.URL}, Retries: -1})
			m, err := c.Metrics(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			// totalMB counts the default partition only; the cluster is in
			// the cross-partition figures.
			if m.TotalMB != 4096 || m.AllocatedMB != 3840 || m.AvailableMB != 256 || !m.CrossPartitionAvailable ||
				m.TotalAcrossPartitions != (cluster.Resource{MemoryMB: 8192, VCores: 8}) || m.UsedAcrossPartitions != (cluster.Resource{MemoryMB: 7680, VCores: 14}) ||
				m.ContainersAcrossPartitions != 14 || m.AppsRunning != 2 || m.ActiveNodes != 2 {
				t.Errorf("%+v", m)
			}
		},
		"running/rm_info":                             checkInfo("ACTIVE", "3.3.6"),
		"ha/p1-rm2-standby_GET_cluster_info":          checkInfo("STANDBY", "3.3.6"),
		"ha/p5-rm1-standby-noactive_GET_cluster_info": checkInfo("STANDBY", "3.3.6"),
		"ha/p5-rm2-standby-noactive_GET_cluster_info": checkInfo("STANDBY", "3.3.6"),
		"running/rm_apps_application_0_0000":          checkNotFound("app with id: application_0_0000 not found"),
		"running/rm_nodes_nosuch_1":                   checkNotFound("nodeId, nosuch:1, is not found"),
		"finished/jhs_job_unknown":                    checkNotFound("job, job_0_0000, is not found"),
		"running/rm_get-node-to-labels": func(t *testing.T, name string) {
			// Not read by the client; decoded with the same list rule to
			// show it covers {"entry":{...}} for one node.
			var b struct {
				NodeToLabels struct {
					Entry jerseyList[struct {
						Key   string `json:"key"`
						Value struct {
							NodeLabelInfo jerseyList[nodeLabelJSON] `json:"nodeLabelInfo"`
						} `json:"value"`
					}] `json:"entry"`
				} `json:"nodeToLabels"`
			}
			mustDecode(t, name, &b)
			e := b.NodeToLabels.Entry
			if len(e) != 1 || e[0].Key != "gpunode:45451" || len(e[0].Value.NodeLabelInfo) != 1 || e[0].Value.NodeLabelInfo[0].Name != "gpu" {
				t.Errorf("%+v", b)
			}
		},
		"running/rm_label-mappings": func(t *testing.T, name string) {
			// Not read by the client; "nodes" is one bare string for one node.
			var b struct {
				LabelsToNodes struct {
					Entry jerseyList[struct {
						Key   nodeLabelJSON `json:"key"`
						Value struct {
							Nodes jerseyList[string] `json:"nodes"`
						} `json:"value"`
					}] `json:"entry"`
				} `json:"labelsToNodes"`
			}
			mustDecode(t, name, &b)
			e := b.LabelsToNodes.Entry
			if len(e) != 1 || e[0].Key.Name != "gpu" || !reflect.DeepEqual([]string(e[0].Value.Nodes), []string{"gpunode:45451"}) {
				t.Errorf("%+v", b)
			}
		},
	}
	// Recorded files the client has no type for, and why.
	noType := map[string]string{
		"running/rm_scheduler-conf":                             "parsed by yarn/schedconf (ParseConfInfo), tested there",
		"running/rm_get-labels-to-nodes":                        "404 HTML: the endpoint does not exist (label-mappings does)",
		"running/am_" + realApp3 + "_counters":                  "job counters: not read",
		"running/am_" + realApp4 + "_counters":                  "job counters: not read",
		"finished/jhs_job_counters":                             "job counters: not read",
		"running/am_" + realApp3 + "_info":                      "AM info: not read",
		"running/am_" + realApp4 + "_info":                      "AM info: not read",
		"finished/jhs_info":                                     "JobHistory info: not read",
		"running/am_" + realApp3 + "_jobattempts":               "job (AM) attempts: not read",
		"running/am_" + realApp4 + "_jobattempts":               "job (AM) attempts: not read",
		"finished/jhs_job_attempts":                             "job (AM) attempts: not read",
		"running/rm_app_" + realApp3 + "_priority":              "GET priority: not read (SetAppPriority reads the PUT's answer)",
		"running/rm_app_" + realApp4 + "_priority":              "GET priority: not read",
		"running/rm_app_" + realApp3 + "_queue":                 "GET app queue: not read",
		"running/rm_app_" + realApp4 + "_queue":                 "GET app queue: not read",
		"running/rm_app_" + realApp3 + "_state":                 "GET app state: not read",
		"running/rm_app_" + realApp4 + "_state":                 "GET app state: not read",
		"finished/am_finished_jobs":                             "302 to a web page: TestReal336FinishedApp",
		"running/am_" + realApp3 + "_conf":                      "not copied (same shape as 0004's)",
		"mutations/put_valid":                                   "plain-text PUT answer: TestReal336HAPutResent",
		"ha/p1-rm2-standby_GET_cluster_apps":                    "307: TestReal336HA*",
		"ha/p1-rm2-standby_GET_cluster_scheduler-conf":          "307: TestReal336HA*",
		"ha/p1-rm2-standby_GET_cluster_scheduler-conf_version":  "307: TestReal336HA*",
		"ha/p1-rm2-standby_GET_isActive":                        "405 HTML: not read",
		"ha/p1-rm2-standby_PUT_cluster_scheduler-conf":          "307: TestReal336HA*",
		"ha/p5-rm1-standby-noactive_GET_cluster_apps":           "307 + Refresh: TestReal336HA*",
		"ha/p5-rm1-standby-noactive_GET_cluster_scheduler-conf": "307 + Refresh: TestReal336HA*",
		"ha/p5-rm1-standby-noactive_PUT_cluster_scheduler-conf": "307 + Refresh: TestReal336HA*",
		"ha/p5-rm2-standby-noactive_GET_cluster_apps":           "307 + Refresh: TestReal336HA*",
		"ha/p5-rm2-standby-noactive_GET_cluster_scheduler-conf": "307 + Refresh: TestReal336HA*",
		"ha/p5-rm2-standby-noactive_PUT_cluster_scheduler-conf": "307 + Refresh: TestReal336HA*",
	}
	for name, check := range checks {
		t.Run(name, func(t *testing.T) { check(t, name) })
	}
	// Every copied recording is either checked or listed.
	err := filepath.WalkDir(realDir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel := strings.TrimPrefix(filepath.ToSlash(p), realDir)
		name := rel
		switch {
		case strings.HasSuffix(rel, ".body"):
			name = strings.TrimSuffix(rel, ".body")
		case strings.HasSuffix(rel, ".json"):
		default:
			return nil // .headers, INDEX.txt, README.md, timings
		}
		if _, ok := checks[name]; ok {
			return nil
		}
		if _, ok := noType[name]; !ok {
			t.Errorf("recorded %s is neither decoded nor listed as having no client type", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func checkApps(n int, firstID, firstQueue string) func(*testing.T, string) {
	return func(t *testing.T, name string) {
		var b appsJSON
		mustDecode(t, name, &b)
		if len(b.Apps.App) != n || b.Apps.App[0].ID != firstID || b.Apps.App[0].Queue != firstQueue {
			t.Errorf("%d apps, first %+v", len(b.Apps.App), b.Apps.App[0])
		}
	}
}

func checkApp(id, queue, state string) func(*testing.T, string) {
	return func(t *testing.T, name string) {
		var b struct {
			App appJSON `json:"app"`
		}
		mustDecode(t, name, &b)
		a := b.App.app()
		if a.ID != id || a.Queue != queue || string(a.State) != state || a.Type != "MAPREDUCE" || a.StartedTime.IsZero() {
			t.Errorf("%+v", a)
		}
		if state == "RUNNING" && (a.RunningContainers != 7 || len(a.UsageByPartition) == 0) {
			t.Errorf("running app %+v", a)
		}
	}
}

func checkAppAttempt(id, node string) func(*testing.T, string) {
	return func(t *testing.T, name string) {
		var b appAttemptsJSON
		mustDecode(t, name, &b)
		at := b.AppAttempts.AppAttempt
		if len(at) != 1 || at[0].AppAttemptID != id || at[0].NodeID != node || at[0].ID != 1 {
			t.Errorf("%+v", at)
		}
	}
}

func checkContainers(n int, node, http string) func(*testing.T, string) {
	return func(t *testing.T, name string) {
		var b containersJSON
		mustDecode(t, name, &b)
		list := b.list()
		if len(list) != n {
			t.Fatalf("%d containers, want %d", len(list), n)
		}
		// The cut view the listing reads counts the same per node.
		var cut containerNodesJSON
		mustDecode(t, name, &cut)
		want := map[string]int{}
		for _, ct := range list {
			want[ct.node()]++
		}
		if got := perNode(cut); !reflect.DeepEqual(got, want) {
			t.Errorf("cut view counts %v, the whole entries %v", got, want)
		}
		am := 0
		for _, ct := range list {
			if ct.node() != node || cluster.HTTPHostPort(ct.NodeHTTPAddress) != http || ct.State != "RUNNING" || ct.AllocatedVCores != 1 {
				t.Errorf("container %+v", ct)
			}
			switch {
			case ct.Priority == 0 && ct.AllocatedMB == 768: // the AM
				am++
			case ct.Priority != 20 || ct.AllocatedMB != 512:
				t.Errorf("map container %+v: want priority 20, 512 MB (sent as strings)", ct)
			}
		}
		if n > 0 && am != 1 {
			t.Errorf("%d AM containers, want 1", am)
		}
	}
}

func checkNodes(n int) func(*testing.T, string) {
	return func(t *testing.T, name string) {
		var b nodesJSON
		mustDecode(t, name, &b)
		if len(b.Nodes.Node) != n {
			t.Fatalf("%d nodes", len(b.Nodes.Node))
		}
		for _, nd := range b.Nodes.Node {
			if nd.TotalResource.resource().MemoryMB != 4096 || nd.NumContainers != 7 {
				t.Errorf("%+v", nd)
			}
		}
	}
}

func checkNode(id, http, label string) func(*testing.T, string) {
	return func(t *testing.T, name string) {
		var b struct {
			Node nodeJSON `json:"node"`
		}
		mustDecode(t, name, &b)
		n := b.Node
		lbl := ""
		if len(n.NodeLabels) > 0 {
			lbl = n.NodeLabels[0]
		}
		if n.ID != id || n.NodeHTTPAddress != http || lbl != label || n.TotalResource.resource().MemoryMB != 4096 {
			t.Errorf("%+v", n)
		}
	}
}

func checkScheduler(leafCap float64) func(*testing.T, string) {
	return func(t *testing.T, name string) {
		var b schedulerJSON
		mustDecode(t, name, &b)
		root := b.Scheduler.SchedulerInfo
		if root == nil || root.Type != "capacityScheduler" || root.Queues == nil || len(root.Queues.Queue) != 2 {
			t.Fatalf("%+v", root)
		}
		for _, q := range root.Queues.Queue {
			if q.QueueName != "crypto" && q.QueueName != "sort" {
				t.Errorf("queue %q", q.QueueName)
			}
			if len(q.Capacities.ByPartition) != 2 {
				t.Errorf("%s: %d partitions", q.QueueName, len(q.Capacities.ByPartition))
			}
			for _, p := range q.Capacities.ByPartition {
				if float64(p.Capacity) != leafCap {
					t.Errorf("%s/%q capacity %v", q.QueueName, p.PartitionName, p.Capacity)
				}
			}
		}
	}
}

func checkJobs(n int, firstID, state string, maps, mapsDone int) func(*testing.T, string) {
	return func(t *testing.T, name string) {
		var b jobsJSON
		mustDecode(t, name, &b)
		if len(b.Jobs.Job) != n {
			t.Fatalf("%d jobs, want %d", len(b.Jobs.Job), n)
		}
		j := b.Jobs.Job[0].job()
		if j.ID != firstID || j.State != state || j.MapsTotal != maps || j.MapsCompleted != mapsDone || j.StartTime.IsZero() {
			t.Errorf("%+v", j)
		}
	}
}

func checkJob(id, state string, maps, mapsDone int) func(*testing.T, string) {
	return func(t *testing.T, name string) {
		var b struct {
			Job jobJSON `json:"job"`
		}
		mustDecode(t, name, &b)
		j := b.Job.job()
		if j.ID != id || j.State != state || j.MapsTotal != maps || j.MapsCompleted != mapsDone {
			t.Errorf("%+v", j)
		}
	}
}

func checkTasks(n, running int) func(*testing.T, string) {
	return func(t *testing.T, name string) {
		var b tasksJSON
		mustDecode(t, name, &b)
		r := 0
		for _, tk := range b.Tasks.Task {
			if tk.State == "RUNNING" {
				r++
			}
		}
		if len(b.Tasks.Task) != n || r != running {
			t.Errorf("%d tasks (%d running), want %d (%d)", len(b.Tasks.Task), r, n, running)
		}
	}
}

func checkAttempts(n int, firstState, node string) func(*testing.T, string) {
	return func(t *testing.T, name string) {
		var b taskAttemptsJSON
		mustDecode(t, name, &b)
		at := b.TaskAttempts.TaskAttempt
		if len(at) != n || at[0].State != firstState || at[0].NodeHTTPAddress != node || at[0].StartTime == 0 {
			t.Errorf("%+v", at)
		}
	}
}

func checkConfTag(tag string) func(*testing.T, string) {
	return func(t *testing.T, name string) {
		var b confJSON
		mustDecode(t, name, &b)
		found := ""
		for _, p := range b.Conf.Property {
			if p.Name == "mapreduce.job.tags" {
				found = p.Value
			}
		}
		if len(b.Conf.Property) < 1000 || found != tag {
			t.Errorf("%d properties, tags %q", len(b.Conf.Property), found)
		}
	}
}

func checkInfo(haState, version string) func(*testing.T, string) {
	return func(t *testing.T, name string) {
		rp := newReplay(t)
		rp.file(t, "/ws/v1/cluster/info", name)
		c, _ := New(Config{RMAddresses: []string{rp.URL}, Retries: -1})
		ci, err := c.Info(context.Background())
		if haState == "STANDBY" {
			if !errors.Is(err, ErrNoActiveRM) {
				t.Errorf("a lone standby: %v, want ErrNoActiveRM", err)
			}
		} else if err != nil {
			t.Fatal(err)
		}
		if ci.HAState != haState || ci.HadoopVersion != version {
			t.Errorf("%+v", ci)
		}
	}
}

func checkNotFound(msg string) func(*testing.T, string) {
	return func(t *testing.T, name string) {
		rp := newReplay(t)
		rp.file(t, "/x", name)
		c, _ := New(Config{RMAddresses: []string{rp.URL}, Retries: -1})
		err := c.getJSON(context.Background(), rp.URL+"/x", nil, &struct{}{})
		var re *RemoteError
		if !errors.As(err, &re) || re.Status != 404 || re.Exception != "NotFoundException" || !strings.Contains(re.Message, msg) {
			t.Errorf("%#v", err)
		}
	}
}
