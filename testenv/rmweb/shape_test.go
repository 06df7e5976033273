package rmweb_test

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/rmweb"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
)

// TestRESTShapes walks every endpoint the mini RM serves — ResourceManager,
// MapReduce AM behind /proxy, JobHistory — over a lee-gpu run (the default
// dialect, 3.4.1) and checks each answer against Hadoop 3.4's
// ResourceManagerRest.md, MapredAppMasterRest.md and HistoryServerRest.md
// and, where they differ, the real 3.3.6 recordings (real_test.go compares
// the recordings field by field): status, wrapper objects,
// the documented field names and their JSON types, and the RemoteException
// or plain-text bodies of the error cases. Rows run in order: the writes
// (priority, queue, scheduler-conf, node labels) come after the reads and
// are read back by the rows that follow them.
//
// Field specs are "name:type[|type]" with types string, number, int, bool,
// object, array, null and numstr (a number as a JSON string, Jersey's
// default encoding); "name?" may be absent (Jersey drops null fields).
func TestRESTShapes(t *testing.T) {
	// rm: both jobs running, 3 virtual minutes in (maps running and done).
	rm := sim.Start(t, "lee-gpu", 1)
	rm.Step(3 * time.Minute)
	// jhs: the same run to its end, for JobHistory.
	jhs := sim.Start(t, "lee-gpu", 1)
	if !jhs.RunUntilDone(24 * time.Hour) {
		t.Fatal("lee-gpu did not finish in 24 virtual hours")
	}
	// file: the default "file" conf store, where scheduler-conf is refused.
	sc, err := sim.LoadScenario("lee-gpu")
	if err != nil {
		t.Fatal(err)
	}
	sc.FileStore = true
	fc, err := sim.NewCluster(sc, 1)
	if err != nil {
		t.Fatal(err)
	}
	fileSrv := httptest.NewServer(fc.Handler())
	t.Cleanup(fileSrv.Close)
	base := map[string]string{"rm": rm.URL, "jhs": jhs.URL, "file": fileSrv.URL}

	// Ids of the running cluster: the crypto app, its job, a succeeded and
	// a running map and their attempts, its AM attempt, the nodes.
	var app, appAttempt string
	for _, a := range rm.Apps() {
		if a.Queue == "root.crypto" {
			app, appAttempt = a.ID, a.AttemptID
		}
	}
	if app == "" {
		t.Fatal("no crypto app")
	}
	job, ok := rm.Job(app)
	if !ok || job.State != "RUNNING" {
		t.Fatalf("crypto job %+v not running", job.State)
	}
	doneMap, doneAtt := taskIn(t, job, "MAP", "SUCCEEDED")
	runMap, runAtt := taskIn(t, job, "MAP", "RUNNING")
	var cpuNode, gpuNode string
	for _, n := range rm.Nodes() {
		if len(n.Labels) == 0 {
			cpuNode = n.ID
		} else {
			gpuNode = n.ID
		}
	}
	am := "/proxy/" + app + "/ws/v1/mapreduce"
	amJob := am + "/jobs/" + job.ID

	// Ids of the finished cluster (JobHistory).
	fjobs := jhs.FinishedJobs()
	sort.Slice(fjobs, func(i, k int) bool { return fjobs[i].ID < fjobs[k].ID })
	if len(fjobs) != 2 {
		t.Fatalf("JobHistory has %d jobs, want 2", len(fjobs))
	}
	hjob := fjobs[0]
	hMap, hMapAtt := taskIn(t, hjob, "MAP", "SUCCEEDED")
	hRed, hRedAtt := taskIn(t, hjob, "REDUCE", "SUCCEEDED")
	hs := "/ws/v1/history/mapreduce/jobs/" + hjob.ID

	sched := func(updates ...string) string { // <sched-conf> with update-queue capacity entries
		var b strings.Builder
		b.WriteString("<sched-conf>")
		for i := 0; i+1 < len(updates); i += 2 {
			fmt.Fprintf(&b, "<update-queue><queue-name>%s</queue-name><params><entry><key>capacity</key><value>%s</value></entry></params></update-queue>", updates[i], updates[i+1])
		}
		b.WriteString("</sched-conf>")
		return b.String()
	}

	rows := []shapeRow{
		// ---- Cluster Information API
		{name: "cluster", on: "rm", path: "/ws/v1/cluster", status: 200, json: checkClusterInfo},
		{name: "cluster info", on: "rm", path: "/ws/v1/cluster/info", status: 200, json: checkClusterInfo},

		// ---- Cluster Metrics API
		{name: "metrics", on: "rm", path: "/ws/v1/cluster/metrics", status: 200, json: func(t *testing.T, v map[string]any) {
			m := sObj(t, v, "clusterMetrics")
			sHas(t, m, metricsFields...)
			sEq(t, m, "appsSubmitted", 2.0)
			sEq(t, m, "appsRunning", 2.0)
			sEq(t, m, "activeNodes", 2.0)
			sEq(t, m, "totalNodes", 2.0)
			if c, _ := m["containersAllocated"].(float64); c <= 0 {
				t.Errorf("containersAllocated %v with jobs running", m["containersAllocated"])
			}
		}},

		// ---- Cluster Nodes / Node API
		{name: "nodes", on: "rm", path: "/ws/v1/cluster/nodes", status: 200, json: func(t *testing.T, v map[string]any) {
			nodes := sArr(t, v, "nodes.node")
			if len(nodes) != 2 {
				t.Fatalf("nodes.node has %d nodes, want 2", len(nodes))
			}
			for _, n := range nodes {
				checkNode(t, n.(map[string]any))
			}
		}},
		{name: "nodes states filter", on: "rm", path: "/ws/v1/cluster/nodes?states=running", status: 200, json: func(t *testing.T, v map[string]any) {
			if n := len(sArr(t, v, "nodes.node")); n != 2 {
				t.Errorf("states=running: %d nodes, want 2", n)
			}
		}},
		{name: "node", on: "rm", path: "/ws/v1/cluster/nodes/" + cpuNode, status: 200, json: func(t *testing.T, v map[string]any) {
			n := sObj(t, v, "node")
			checkNode(t, n)
			sEq(t, n, "id", cpuNode)
			sEq(t, n, "state", "RUNNING")
		}},
		{name: "unknown node", on: "rm", path: "/ws/v1/cluster/nodes/nope:8041", status: 404,
			json: sRemote("NotFoundException", "org.apache.hadoop.yarn.webapp.NotFoundException", "java.lang.Exception: nodeId, nope:8041, is not found")},

		// ---- Node labels (Jersey's default JSON: no root, strings for booleans)
		{name: "get-node-labels", on: "rm", path: "/ws/v1/cluster/get-node-labels", status: 200, json: func(t *testing.T, v map[string]any) {
			ls := sOneOrMany(t, v, "nodeLabelInfo")
			if len(ls) != 1 {
				t.Fatalf("want the gpu label, got %v", ls)
			}
			l := ls[0].(map[string]any)
			sHas(t, l, "name:string", "exclusivity:string|bool", "partitionInfo?:object")
			sEq(t, l, "name", "gpu")
			if fmt.Sprint(l["exclusivity"]) != "false" {
				t.Errorf("gpu exclusivity %v, want false", l["exclusivity"])
			}
		}},
		{name: "get-node-to-labels", on: "rm", path: "/ws/v1/cluster/get-node-to-labels", status: 200, json: func(t *testing.T, v map[string]any) {
			got := nodeToLabels(t, v)
			if len(got) != 1 || strings.Join(got[gpuNode], ",") != "gpu" {
				t.Errorf("node to labels %v, want only %s → gpu", got, gpuNode)
			}
		}},

		// ---- Cluster Scheduler API (Capacity Scheduler)
		{name: "scheduler", on: "rm", path: "/ws/v1/cluster/scheduler", status: 200, json: func(t *testing.T, v map[string]any) {
			leaves := checkScheduler(t, v)
			for _, name := range []string{"crypto", "sort"} {
				q := leaves[name]
				sEq(t, q, "capacity", 50.0)
				sEq(t, q, "numApplications", 1.0)
				sEq(t, q, "numActiveApplications", 1.0)
				sEq(t, q, "state", "RUNNING")
			}
			if used, _ := leaves["crypto"]["usedCapacity"].(float64); used <= 0 {
				t.Errorf("crypto usedCapacity %v with a job running", leaves["crypto"]["usedCapacity"])
			}
		}},

		// ---- Scheduler Configuration Mutation API (reads)
		{name: "scheduler-conf", on: "rm", path: "/ws/v1/cluster/scheduler-conf", status: 200, json: func(t *testing.T, v map[string]any) {
			conf := confProps(t, v)
			if conf["yarn.scheduler.capacity.root.queues"] != "crypto,sort" || conf["yarn.scheduler.capacity.root.crypto.capacity"] != "50" {
				t.Errorf("scheduler-conf: root.queues %q crypto.capacity %q", conf["yarn.scheduler.capacity.root.queues"], conf["yarn.scheduler.capacity.root.crypto.capacity"])
			}
		}},
		{name: "scheduler-conf version", on: "rm", path: "/ws/v1/cluster/scheduler-conf/version", status: 200, json: checkVersion(1)},

		// ---- Cluster Applications API
		{name: "apps", on: "rm", path: "/ws/v1/cluster/apps", status: 200, json: func(t *testing.T, v map[string]any) {
			apps := sArr(t, v, "apps.app")
			if len(apps) != 2 {
				t.Fatalf("apps.app has %d apps, want 2", len(apps))
			}
			for _, a := range apps {
				a := a.(map[string]any)
				checkApp(t, a)
				sEq(t, a, "state", "RUNNING")
				sEq(t, a, "finalStatus", "UNDEFINED")
				sEq(t, a, "trackingUI", "ApplicationMaster")
				sEq(t, a, "applicationType", "MAPREDUCE")
			}
		}},
		{name: "apps states", on: "rm", path: "/ws/v1/cluster/apps?states=RUNNING", status: 200, json: appCount(2)},
		{name: "apps states lower case, several", on: "rm", path: "/ws/v1/cluster/apps?states=accepted,running", status: 200, json: appCount(2)},
		{name: "apps state (deprecated)", on: "rm", path: "/ws/v1/cluster/apps?state=RUNNING", status: 200, json: appCount(2)},
		{name: "apps none", on: "rm", path: "/ws/v1/cluster/apps?states=KILLED", status: 200, json: func(t *testing.T, v map[string]any) {
			if a, ok := v["apps"]; !ok || a != nil || len(v) != 1 {
				t.Errorf(`no apps must read {"apps":null}, got %s`, sShort(v))
			}
		}},
		{name: "apps bad state", on: "rm", path: "/ws/v1/cluster/apps?states=SLEEPING", status: 400,
			json: sRemote("BadRequestException", "org.apache.hadoop.yarn.webapp.BadRequestException", "java.lang.Exception: Invalid application-state SLEEPING")},
		{name: "apps queue", on: "rm", path: "/ws/v1/cluster/apps?queue=crypto", status: 200, json: appsWhere(1, "queue", "root.crypto")},
		{name: "apps queue full path", on: "rm", path: "/ws/v1/cluster/apps?queue=root.crypto", status: 200, json: appsWhere(1, "queue", "root.crypto")},
		{name: "apps applicationTags", on: "rm", path: "/ws/v1/cluster/apps?applicationTags=jobclass%3Dsort", status: 200, json: appsWhere(1, "applicationTags", "jobclass=sort")},
		{name: "apps limit", on: "rm", path: "/ws/v1/cluster/apps?limit=1", status: 200, json: appCount(1)},
		{name: "apps unknown queue", on: "rm", path: "/ws/v1/cluster/apps?queue=nosuch", status: 200, json: func(t *testing.T, v map[string]any) {
			if v["apps"] != nil {
				t.Errorf(`want {"apps":null}, got %s`, sShort(v))
			}
		}},

		// ---- Cluster Application API and sub-resources
		{name: "app", on: "rm", path: "/ws/v1/cluster/apps/" + app, status: 200, json: func(t *testing.T, v map[string]any) {
			a := sObj(t, v, "app")
			checkApp(t, a)
			sEq(t, a, "id", app)
			sEq(t, a, "queue", "root.crypto") // 3.4: the full path
			sEq(t, a, "applicationTags", "jobclass=crypto")
		}},
		{name: "unknown app", on: "rm", path: "/ws/v1/cluster/apps/application_1_9999", status: 404,
			json: sRemote("NotFoundException", "org.apache.hadoop.yarn.webapp.NotFoundException", "java.lang.Exception: app with id: application_1_9999 not found")},
		{name: "app state", on: "rm", path: "/ws/v1/cluster/apps/" + app + "/state", status: 200, json: func(t *testing.T, v map[string]any) {
			sExactly(t, v, "state:string")
			sEq(t, v, "state", "RUNNING")
		}},
		{name: "appattempts", on: "rm", path: "/ws/v1/cluster/apps/" + app + "/appattempts", status: 200, json: func(t *testing.T, v map[string]any) {
			atts := sArr(t, v, "appAttempts.appAttempt")
			if len(atts) != 1 {
				t.Fatalf("want one attempt, got %d", len(atts))
			}
			a := atts[0].(map[string]any)
			sHas(t, a, appAttemptFields...)
			sEq(t, a, "id", 1.0)
			sEq(t, a, "appAttemptId", appAttempt)
			if l, _ := a["logsLink"].(string); !strings.HasPrefix(l, "http://") || !strings.Contains(l, "/node/containerlogs/"+fmt.Sprint(a["containerId"])) {
				t.Errorf("logsLink %q is not the AM container's log URL", l)
			}
		}},
		{name: "containers", on: "rm", path: "/ws/v1/cluster/apps/" + app + "/appattempts/" + appAttempt + "/containers", status: 200, json: func(t *testing.T, v map[string]any) {
			cs := containerList(t, v)
			// The AM and the running maps (17 at 3 minutes).
			if len(cs) < 2 {
				t.Fatalf("want the AM and running maps, got %d containers", len(cs))
			}
			for _, c := range cs {
				sHas(t, c.(map[string]any), containerFields...)
			}
		}},
		{name: "app priority", on: "rm", path: "/ws/v1/cluster/apps/" + app + "/priority", status: 200, json: func(t *testing.T, v map[string]any) {
			sExactly(t, v, "priority:int")
		}},
		{name: "app queue", on: "rm", path: "/ws/v1/cluster/apps/" + app + "/queue", status: 200, json: func(t *testing.T, v map[string]any) {
			sExactly(t, v, "queue:string")
			sEq(t, v, "queue", "root.crypto")
		}},

		// ---- MapReduce AM REST API through the RM web proxy
		{name: "AM", on: "rm", path: am, status: 200, json: checkAMInfo(app)},
		{name: "AM info", on: "rm", path: am + "/info", status: 200, json: checkAMInfo(app)},
		{name: "AM jobs", on: "rm", path: am + "/jobs", status: 200, json: func(t *testing.T, v map[string]any) {
			jobs := sArr(t, v, "jobs.job")
			if len(jobs) != 1 {
				t.Fatalf("an MR AM runs one job, got %d", len(jobs))
			}
			checkAMJob(t, jobs[0].(map[string]any), job.ID)
		}},
		{name: "AM job", on: "rm", path: amJob, status: 200, json: func(t *testing.T, v map[string]any) {
			checkAMJob(t, sObj(t, v, "job"), job.ID)
		}},
		{name: "AM job counters", on: "rm", path: amJob + "/counters", status: 200, json: checkJobCounters(job.ID)},
		{name: "AM job conf", on: "rm", path: amJob + "/conf", status: 200, json: checkJobConf("crypto")},
		{name: "AM tasks", on: "rm", path: amJob + "/tasks", status: 200, json: checkTasks(257, "")},
		{name: "AM tasks type=m", on: "rm", path: amJob + "/tasks?type=m", status: 200, json: checkTasks(256, "MAP")},
		{name: "AM tasks type=r", on: "rm", path: amJob + "/tasks?type=r", status: 200, json: checkTasks(1, "REDUCE")},
		{name: "AM task", on: "rm", path: amJob + "/tasks/" + runMap, status: 200, json: func(t *testing.T, v map[string]any) {
			tk := sObj(t, v, "task")
			sHas(t, tk, taskFields...)
			sEq(t, tk, "id", runMap)
			sEq(t, tk, "state", "RUNNING")
			sEq(t, tk, "successfulAttempt", "")
		}},
		{name: "AM task counters", on: "rm", path: amJob + "/tasks/" + doneMap + "/counters", status: 200, json: checkTaskCounters(doneMap)},
		{name: "AM task attempts", on: "rm", path: amJob + "/tasks/" + runMap + "/attempts", status: 200, json: func(t *testing.T, v map[string]any) {
			atts := sArr(t, v, "taskAttempts.taskAttempt")
			if len(atts) == 0 {
				t.Fatal("running map has no attempts")
			}
			a := atts[len(atts)-1].(map[string]any)
			sHas(t, a, attemptFields...)
			sEq(t, a, "id", runAtt)
			sEq(t, a, "state", "RUNNING")
			sEq(t, a, "type", "MAP")
		}},
		{name: "AM task attempt", on: "rm", path: amJob + "/tasks/" + doneMap + "/attempts/" + doneAtt, status: 200, json: func(t *testing.T, v map[string]any) {
			a := sObj(t, v, "taskAttempt")
			sHas(t, a, attemptFields...)
			sEq(t, a, "state", "SUCCEEDED")
			sEq(t, a, "progress", 100.0)
		}},
		{name: "AM task attempt counters", on: "rm", path: amJob + "/tasks/" + doneMap + "/attempts/" + doneAtt + "/counters", status: 200, json: checkAttemptCounters(doneAtt)},
		{name: "AM unknown job", on: "rm", path: am + "/jobs/job_1_9999", status: 404,
			json: sRemote("NotFoundException", "org.apache.hadoop.yarn.webapp.NotFoundException", "java.lang.Exception: job, job_1_9999, is not found")},
		{name: "AM unknown task", on: "rm", path: amJob + "/tasks/task_1_9999_m_000000", status: 404,
			json: sRemote("NotFoundException", "org.apache.hadoop.yarn.webapp.NotFoundException", "java.lang.Exception: ")},

		// ---- writes on a running app
		{name: "app priority put", on: "rm", method: "PUT", path: "/ws/v1/cluster/apps/" + app + "/priority", body: `{"priority":3}`, status: 200, json: func(t *testing.T, v map[string]any) {
			sExactly(t, v, "priority:int")
			sEq(t, v, "priority", 3.0)
		}},
		{name: "app priority after put", on: "rm", path: "/ws/v1/cluster/apps/" + app + "/priority", status: 200, json: func(t *testing.T, v map[string]any) {
			sEq(t, v, "priority", 3.0)
		}},
		{name: "app priority put above max", on: "rm", method: "PUT", path: "/ws/v1/cluster/apps/" + app + "/priority", body: `{"priority":99}`, status: 200, json: func(t *testing.T, v map[string]any) {
			sEq(t, v, "priority", 10.0) // yarn.cluster.max-application-priority
		}},
		// Jersey drops unknown keys and AppPriority.priority is an int: a
		// body without it sets 0 (RMWebServices; not recorded).
		{name: "app priority put without the key", on: "rm", method: "PUT", path: "/ws/v1/cluster/apps/" + app + "/priority", body: `{"prio":7}`, status: 200, json: func(t *testing.T, v map[string]any) {
			sEq(t, v, "priority", 0.0)
		}},
		{name: "app priority put back", on: "rm", method: "PUT", path: "/ws/v1/cluster/apps/" + app + "/priority", body: `{"priority":10}`, status: 200, json: func(t *testing.T, v map[string]any) {
			sEq(t, v, "priority", 10.0)
		}},
		{name: "app queue put", on: "rm", method: "PUT", path: "/ws/v1/cluster/apps/" + app + "/queue", body: `{"queue":"sort"}`, status: 200, json: func(t *testing.T, v map[string]any) {
			sExactly(t, v, "queue:string")
			sEq(t, v, "queue", "sort")
		}},
		{name: "app queue after put", on: "rm", path: "/ws/v1/cluster/apps/" + app + "/queue", status: 200, json: func(t *testing.T, v map[string]any) {
			sEq(t, v, "queue", "root.sort")
		}},
		{name: "apps queue after move", on: "rm", path: "/ws/v1/cluster/apps?queue=sort", status: 200, json: appsWhere(2, "queue", "root.sort")},

		// ---- Scheduler Configuration Mutation API (writes)
		{name: "scheduler-conf validate ok", on: "rm", method: "POST", path: "/ws/v1/cluster/scheduler-conf/validate",
			body: sched("root.crypto", "55", "root.sort", "45"), status: 200, json: func(t *testing.T, v map[string]any) {
				if c := confProps(t, v)["yarn.scheduler.capacity.root.crypto.capacity"]; c != "55" {
					t.Errorf("validated conf has crypto capacity %q, want 55", c)
				}
			}},
		{name: "scheduler-conf validate rejected", on: "rm", method: "POST", path: "/ws/v1/cluster/scheduler-conf/validate",
			body: sched("root.crypto", "70"), status: 400, text: "CapacityScheduler configuration validation failed:"},
		{name: "scheduler-conf put rejected", on: "rm", method: "PUT", path: "/ws/v1/cluster/scheduler-conf",
			body: sched("root.crypto", "70"), status: 400, text: "Illegal capacity sum of 1.2 for children of queue root for label=. It should be either 0 or 1.0"},
		{name: "version unchanged by validate and rejected put", on: "rm", path: "/ws/v1/cluster/scheduler-conf/version", status: 200, json: checkVersion(1)},
		{name: "scheduler-conf put", on: "rm", method: "PUT", path: "/ws/v1/cluster/scheduler-conf",
			body: sched("root.crypto", "60", "root.sort", "40"), status: 200, text: "Configuration change successfully applied."},
		{name: "version after put", on: "rm", path: "/ws/v1/cluster/scheduler-conf/version", status: 200, json: checkVersion(2)},
		{name: "scheduler-conf after put", on: "rm", path: "/ws/v1/cluster/scheduler-conf", status: 200, json: func(t *testing.T, v map[string]any) {
			if c := confProps(t, v)["yarn.scheduler.capacity.root.crypto.capacity"]; c != "60" {
				t.Errorf("crypto capacity %q after the PUT, want 60", c)
			}
		}},
		{name: "scheduler after put", on: "rm", path: "/ws/v1/cluster/scheduler", status: 200, json: func(t *testing.T, v map[string]any) {
			leaves := checkScheduler(t, v)
			// Java floats: 60 reads 60.000004 (recorded on 3.3.6).
			sEq(t, leaves["crypto"], "capacity", 60.000004)
			sEq(t, leaves["sort"], "capacity", 40.0)
		}},

		// ---- node label writes, read back
		{name: "add-node-labels", on: "rm", method: "POST", path: "/ws/v1/cluster/add-node-labels",
			body: `{"nodeLabelInfo":[{"name":"ssd","exclusivity":true}]}`, status: 200},
		{name: "get-node-labels after add", on: "rm", path: "/ws/v1/cluster/get-node-labels", status: 200, json: func(t *testing.T, v map[string]any) {
			ex := map[string]string{}
			for _, l := range sOneOrMany(t, v, "nodeLabelInfo") {
				l := l.(map[string]any)
				ex[fmt.Sprint(l["name"])] = fmt.Sprint(l["exclusivity"])
			}
			if ex["ssd"] != "true" || ex["gpu"] != "false" {
				t.Errorf("labels %v, want gpu=false ssd=true", ex)
			}
		}},
		// Hadoop's NodeToLabelsEntry reads the key "labels" (recorded).
		{name: "replace-node-to-labels", on: "rm", method: "POST", path: "/ws/v1/cluster/replace-node-to-labels",
			body: `{"nodeToLabels":[{"nodeId":"` + cpuNode + `","labels":["ssd"]}]}`, status: 200},
		{name: "get-node-to-labels after replace", on: "rm", path: "/ws/v1/cluster/get-node-to-labels", status: 200, json: func(t *testing.T, v map[string]any) {
			got := nodeToLabels(t, v)
			if strings.Join(got[cpuNode], ",") != "ssd" || strings.Join(got[gpuNode], ",") != "gpu" {
				t.Errorf("node to labels %v", got)
			}
		}},
		// Any other key is dropped: the entry reads as no label, and a
		// labelled node loses its label (recorded on 3.3.6).
		{name: "replace-node-to-labels, key nodeLabels", on: "rm", method: "POST", path: "/ws/v1/cluster/replace-node-to-labels",
			body: `{"nodeToLabels":[{"nodeId":"` + cpuNode + `","nodeLabels":["ssd"]}]}`, status: 200},
		{name: "get-node-to-labels after the nodeLabels key", on: "rm", path: "/ws/v1/cluster/get-node-to-labels", status: 200, json: func(t *testing.T, v map[string]any) {
			got := nodeToLabels(t, v)
			if len(got[cpuNode]) != 0 || strings.Join(got[gpuNode], ",") != "gpu" {
				t.Errorf("node to labels %v, want %s unlabelled", got, cpuNode)
			}
		}},
		{name: "node replace-labels (clear)", on: "rm", method: "POST", path: "/ws/v1/cluster/nodes/" + cpuNode + "/replace-labels", status: 200},
		{name: "remove-node-labels", on: "rm", method: "POST", path: "/ws/v1/cluster/remove-node-labels?labels=ssd", status: 200},
		{name: "get-node-labels after remove", on: "rm", path: "/ws/v1/cluster/get-node-labels", status: 200, json: func(t *testing.T, v map[string]any) {
			ls := sOneOrMany(t, v, "nodeLabelInfo")
			if len(ls) != 1 || ls[0].(map[string]any)["name"] != "gpu" {
				t.Errorf("labels after remove: %s", sShort(v))
			}
		}},

		// ---- the file conf store: not mutable
		{name: "file store scheduler-conf put", on: "file", method: "PUT", path: "/ws/v1/cluster/scheduler-conf",
			body: sched("root.crypto", "60", "root.sort", "40"), status: 400, text: "Configuration change only supported by MutableConfScheduler."},
		// The texts recorded on 3.3.6 (real-hadoop-3.3.6/file-store).
		{name: "file store scheduler-conf get", on: "file", path: "/ws/v1/cluster/scheduler-conf", status: 400,
			text: "This API only supports to retrieve scheduler configuration from a mutable-conf scheduler, underneath scheduler CapacityScheduler is not an instance of MutableConfScheduler"},
		{name: "file store scheduler-conf version", on: "file", path: "/ws/v1/cluster/scheduler-conf/version", status: 400, text: "Configuration Version only supported by MutableConfScheduler."},
		{name: "file store scheduler-conf validate", on: "file", method: "POST", path: "/ws/v1/cluster/scheduler-conf/validate",
			body: sched("root.crypto", "60", "root.sort", "40"), status: 400, text: "Configuration change validation only supported by MutableConfScheduler."},

		// ---- after the run: finished apps, the AM gone, JobHistory
		{name: "finished apps", on: "jhs", path: "/ws/v1/cluster/apps?states=FINISHED", status: 200, json: func(t *testing.T, v map[string]any) {
			apps := sArr(t, v, "apps.app")
			if len(apps) != 2 {
				t.Fatalf("%d finished apps, want 2", len(apps))
			}
			for _, a := range apps {
				a := a.(map[string]any)
				checkApp(t, a)
				sEq(t, a, "finalStatus", "SUCCEEDED")
				sEq(t, a, "trackingUI", "History")
				sEq(t, a, "progress", 100.0)
				if f, _ := a["finishedTime"].(float64); f <= 0 {
					t.Errorf("finished app finishedTime %v", a["finishedTime"])
				}
			}
		}},
		{name: "metrics after the run", on: "jhs", path: "/ws/v1/cluster/metrics", status: 200, json: func(t *testing.T, v map[string]any) {
			m := sObj(t, v, "clusterMetrics")
			sHas(t, m, metricsFields...)
			sEq(t, m, "appsCompleted", 2.0)
			sEq(t, m, "appsRunning", 0.0)
			sEq(t, m, "allocatedMB", 0.0)
		}},
		{name: "AM gone after finish", on: "jhs", path: "/proxy/" + hjob.AppID + "/ws/v1/mapreduce/jobs", status: 302,
			location: "/jobhistory/job/" + hjob.ID + "/ws/v1/mapreduce/jobs", text: "Content has moved"},
		{name: "containers of a finished app", on: "jhs", path: "/ws/v1/cluster/apps/" + hjob.AppID + "/appattempts/appattempt" + strings.TrimPrefix(hjob.AppID, "application") + "_000001/containers",
			status: 200, json: func(t *testing.T, v map[string]any) {
				if len(v) != 0 {
					t.Errorf("a finished app's containers must read {}, got %s", sShort(v))
				}
			}},
		{name: "unknown resource", on: "rm", path: "/ws/v1/cluster/nothing-here", status: 404,
			json: sRemote("NotFoundException", "org.apache.hadoop.yarn.webapp.NotFoundException", "java.lang.Exception: ")},
		{name: "get-labels-to-nodes does not exist", on: "rm", path: "/ws/v1/cluster/get-labels-to-nodes", status: 404, text: "controller for v1 not found"},
		{name: "JHS", on: "jhs", path: "/ws/v1/history", status: 200, json: checkHistoryInfo},
		{name: "JHS info", on: "jhs", path: "/ws/v1/history/info", status: 200, json: checkHistoryInfo},
		{name: "JHS jobs", on: "jhs", path: "/ws/v1/history/mapreduce/jobs", status: 200, json: func(t *testing.T, v map[string]any) {
			jobs := sArr(t, v, "jobs.job")
			if len(jobs) != 2 {
				t.Fatalf("%d jobs, want 2", len(jobs))
			}
			for _, j := range jobs {
				j := j.(map[string]any)
				sHas(t, j, hsJobsFields...)
				sEq(t, j, "state", "SUCCEEDED")
			}
		}},
		{name: "JHS jobs filters", on: "jhs", path: "/ws/v1/history/mapreduce/jobs?state=SUCCEEDED&queue=sort&limit=5", status: 200, json: func(t *testing.T, v map[string]any) {
			jobs := sArr(t, v, "jobs.job")
			if len(jobs) != 1 || jobs[0].(map[string]any)["queue"] != "root.sort" {
				t.Errorf("queue=sort: %s", sShort(v))
			}
		}},
		{name: "JHS jobs limit", on: "jhs", path: "/ws/v1/history/mapreduce/jobs?limit=1", status: 200, json: func(t *testing.T, v map[string]any) {
			if n := len(sArr(t, v, "jobs.job")); n != 1 {
				t.Errorf("limit=1: %d jobs", n)
			}
		}},
		{name: "JHS job", on: "jhs", path: hs, status: 200, json: func(t *testing.T, v map[string]any) {
			j := sObj(t, v, "job")
			sHas(t, j, hsJobFields...)
			checkACLs(t, j)
			sEq(t, j, "id", hjob.ID)
			sEq(t, j, "state", "SUCCEEDED")
			sEq(t, j, "mapsCompleted", 256.0)
			sEq(t, j, "reducesCompleted", 1.0)
			sEq(t, j, "successfulMapAttempts", 256.0)
			sEq(t, j, "successfulReduceAttempts", 1.0)
			for _, k := range []string{"avgMapTime", "avgReduceTime", "avgShuffleTime"} {
				if x, _ := j[k].(float64); x <= 0 {
					t.Errorf("%s = %v, want > 0", k, j[k])
				}
			}
		}},
		{name: "JHS job counters", on: "jhs", path: hs + "/counters", status: 200, json: checkJobCounters(hjob.ID)},
		{name: "JHS job conf", on: "jhs", path: hs + "/conf", status: 200, json: checkJobConf(strings.TrimPrefix(hjob.Queue, "root."))},
		{name: "JHS tasks", on: "jhs", path: hs + "/tasks", status: 200, json: checkTasks(257, "")},
		{name: "JHS tasks type=r", on: "jhs", path: hs + "/tasks?type=r", status: 200, json: checkTasks(1, "REDUCE")},
		{name: "JHS task", on: "jhs", path: hs + "/tasks/" + hRed, status: 200, json: func(t *testing.T, v map[string]any) {
			tk := sObj(t, v, "task")
			sHas(t, tk, taskFields...)
			sEq(t, tk, "type", "REDUCE")
			sEq(t, tk, "state", "SUCCEEDED")
			sEq(t, tk, "successfulAttempt", hRedAtt)
			sEq(t, tk, "progress", 100.0)
		}},
		{name: "JHS task counters", on: "jhs", path: hs + "/tasks/" + hMap + "/counters", status: 200, json: checkTaskCounters(hMap)},
		{name: "JHS map attempts", on: "jhs", path: hs + "/tasks/" + hMap + "/attempts", status: 200, json: func(t *testing.T, v map[string]any) {
			atts := sArr(t, v, "taskAttempts.taskAttempt")
			a := atts[len(atts)-1].(map[string]any)
			sHas(t, a, attemptFields...)
			sEq(t, a, "id", hMapAtt)
			sEq(t, a, "type", "MAP")
			if el, _ := a["elapsedTime"].(float64); el <= 0 {
				t.Errorf("finished attempt elapsedTime %v", a["elapsedTime"])
			}
		}},
		{name: "JHS reduce attempts", on: "jhs", path: hs + "/tasks/" + hRed + "/attempts", status: 200, json: func(t *testing.T, v map[string]any) {
			atts := sArr(t, v, "taskAttempts.taskAttempt")
			a := atts[len(atts)-1].(map[string]any)
			sHas(t, a, attemptFields...)
			sHas(t, a, reduceAttemptFields...)
			sEq(t, a, "type", "REDUCE")
			start, shuffle, merge, finish := a["startTime"].(float64), a["shuffleFinishTime"].(float64), a["mergeFinishTime"].(float64), a["finishTime"].(float64)
			if !(start <= shuffle && shuffle <= merge && merge <= finish) {
				t.Errorf("reduce phases out of order: start %v shuffle %v merge %v finish %v", start, shuffle, merge, finish)
			}
			if a["elapsedShuffleTime"].(float64)+a["elapsedMergeTime"].(float64)+a["elapsedReduceTime"].(float64) != a["elapsedTime"].(float64) {
				t.Errorf("shuffle+merge+reduce != elapsed: %s", sShort(a))
			}
		}},
		{name: "JHS task attempt", on: "jhs", path: hs + "/tasks/" + hMap + "/attempts/" + hMapAtt, status: 200, json: func(t *testing.T, v map[string]any) {
			a := sObj(t, v, "taskAttempt")
			sHas(t, a, attemptFields...)
			sEq(t, a, "id", hMapAtt)
		}},
		{name: "JHS task attempt counters", on: "jhs", path: hs + "/tasks/" + hMap + "/attempts/" + hMapAtt + "/counters", status: 200, json: checkAttemptCounters(hMapAtt)},
		{name: "JHS unknown job", on: "jhs", path: "/ws/v1/history/mapreduce/jobs/job_1_9999", status: 404,
			json: sRemote("NotFoundException", "org.apache.hadoop.yarn.webapp.NotFoundException", "java.lang.Exception: job, job_1_9999, is not found")},
		{name: "JHS unknown attempt", on: "jhs", path: hs + "/tasks/" + hMap + "/attempts/attempt_1_9999_m_000000_0", status: 404,
			json: sRemote("NotFoundException", "org.apache.hadoop.yarn.webapp.NotFoundException", "java.lang.Exception: ")},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) { r.run(t, base[r.on]) })
	}
}

// TestRESTShapesAuth: with simple auth and yarn.admin.acl, a write without
// ?user.name= is 401 and a non-admin's scheduler-conf call 403, both as
// RemoteException bodies.
func TestRESTShapesAuth(t *testing.T) {
	c := sim.Start(t, "lee-gpu", 1)
	c.Step(3 * time.Minute)
	srv := httptest.NewServer(rmweb.New(c.Cluster, rmweb.Options{MutableConfStore: true, RequireUser: true, AdminUsers: []string{"yarn"}, MaxAppPriority: 10}))
	t.Cleanup(srv.Close)
	app := c.Apps()[0].ID
	for _, r := range []shapeRow{
		{name: "no user", path: "/ws/v1/cluster/scheduler-conf", status: 401, noUser: true,
			json: sRemote("AuthorizationException", "org.apache.hadoop.security.authorize.AuthorizationException", "Unable to obtain user name")},
		{name: "not admin", path: "/ws/v1/cluster/scheduler-conf?user.name=bob", status: 403, noUser: true,
			json: sRemote("ForbiddenException", "org.apache.hadoop.yarn.webapp.ForbiddenException", "java.lang.Exception: ")},
		{name: "admin", path: "/ws/v1/cluster/scheduler-conf", status: 200, json: func(t *testing.T, v map[string]any) { confProps(t, v) }},
		{name: "priority put without user", method: "PUT", path: "/ws/v1/cluster/apps/" + app + "/priority", body: `{"priority":1}`, status: 401, noUser: true,
			json: sRemote("AuthorizationException", "org.apache.hadoop.security.authorize.AuthorizationException", "")},
		{name: "priority get needs no user", path: "/ws/v1/cluster/apps/" + app + "/priority", status: 200, noUser: true, json: func(t *testing.T, v map[string]any) { sExactly(t, v, "priority:int") }},
	} {
		t.Run(r.name, func(t *testing.T) { r.run(t, srv.URL) })
	}
}

type shapeRow struct {
	name   string
	on     string // "rm" (3 virtual minutes in), "jhs" (run to the end), "file" (file conf store)
	method string // GET when empty
	path   string
	body   string // XML when it starts with "<", else JSON
	status int
	noUser bool                                 // leave out ?user.name=yarn
	json   func(t *testing.T, v map[string]any) // the answer is a JSON object
	text   string                               // the answer is plain text containing this
	// location is a suffix the Location header must have (redirects are
	// not followed).
	location string
}

// noFollow reads redirects as answers, as the shape rows need.
var noFollow = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

func (r shapeRow) run(t *testing.T, base string) {
	t.Helper()
	m := r.method
	if m == "" {
		m = http.MethodGet
	}
	req, err := http.NewRequest(m, base+r.path, strings.NewReader(r.body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json")
	if r.body != "" {
		if strings.HasPrefix(r.body, "<") {
			req.Header.Set("Content-Type", "application/xml")
		} else {
			req.Header.Set("Content-Type", "application/json")
		}
	}
	if !r.noUser {
		q := req.URL.Query()
		q.Set("user.name", "yarn")
		req.URL.RawQuery = q.Encode()
	}
	resp, err := noFollow.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if loc := resp.Header.Get("Location"); r.location != "" && !strings.HasSuffix(loc, r.location) {
		t.Errorf("Location %q, want …%s", loc, r.location)
	}
	if resp.StatusCode != r.status {
		t.Fatalf("%s %s: status %d, want %d: %.300s", m, r.path, resp.StatusCode, r.status, body)
	}
	if resp.Header.Get("Date") == "" {
		t.Error("no Date header")
	}
	switch {
	case r.json != nil:
		if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
			t.Errorf("Content-Type %q, want application/json", ct)
		}
		var v map[string]any
		if err := json.Unmarshal(body, &v); err != nil {
			t.Fatalf("not a JSON object: %v: %.300s", err, body)
		}
		r.json(t, v)
	case r.text != "":
		if !strings.Contains(string(body), r.text) {
			t.Errorf("body %q does not contain %q", body, r.text)
		}
	}
}

// ---- documented fields

var clusterInfoFields = []string{"id:int", "startedOn:int", "state:string", "haState:string", "rmStateStoreName:string",
	"resourceManagerVersion:string", "resourceManagerBuildVersion:string", "resourceManagerVersionBuiltOn:string",
	"hadoopVersion:string", "hadoopBuildVersion:string", "hadoopVersionBuiltOn:string", "haZooKeeperConnectionState:string"}

var metricsFields = []string{"appsSubmitted:int", "appsCompleted:int", "appsPending:int", "appsRunning:int", "appsFailed:int",
	"appsKilled:int", "reservedMB:int", "availableMB:int", "allocatedMB:int", "totalMB:int", "reservedVirtualCores:int",
	"availableVirtualCores:int", "allocatedVirtualCores:int", "totalVirtualCores:int", "containersAllocated:int",
	"containersReserved:int", "containersPending:int", "totalNodes:int", "activeNodes:int", "lostNodes:int", "unhealthyNodes:int",
	"decommissioningNodes:int", "decommissionedNodes:int", "rebootedNodes:int", "shutdownNodes:int"}

// Node object (3.x), plus the 3.4 DAO's resource objects.
var nodeFields = []string{"rack:string", "state:string", "id:string", "nodeHostName:string", "nodeHTTPAddress:string",
	"lastHealthUpdate:int", "version:string", "healthReport:string", "numContainers:int", "usedMemoryMB:int", "availMemoryMB:int",
	"usedVirtualCores:int", "availableVirtualCores:int", "resourceUtilization:object", "nodeLabels?:array",
	"usedResource:object", "availableResource:object", "totalResource:object"}

var resourceUtilizationFields = []string{"nodePhysicalMemoryMB:int", "nodeVirtualMemoryMB:int", "nodeCPUUsage:number",
	"aggregatedContainersPhysicalMemoryMB:int", "aggregatedContainersVirtualMemoryMB:int", "containersCPUUsage:number"}

var appFields = []string{"id:string", "user:string", "name:string", "queue:string", "state:string", "finalStatus:string",
	"progress:number", "trackingUI:string", "trackingUrl:string", "diagnostics:string", "clusterId:int", "applicationType:string",
	"applicationTags:string", "priority:int", "startedTime:int", "finishedTime:int", "elapsedTime:int", "amContainerLogs:string",
	"amHostHttpAddress:string", "allocatedMB:int", "allocatedVCores:int", "runningContainers:int", "memorySeconds:int",
	"vcoreSeconds:int", "queueUsagePercentage:number", "clusterUsagePercentage:number", "preemptedResourceMB:int",
	"preemptedResourceVCores:int", "numNonAMContainerPreempted:int", "numAMContainerPreempted:int", "logAggregationStatus:string",
	"unmanagedApplication:bool", "appNodeLabelExpression?:string", "amNodeLabelExpression:string"}

// appAttempt: the documented id (an int in the DAO and the examples), nodeId,
// nodeHttpAddress, logsLink, containerId, startTime; and the 3.x additions.
var appAttemptFields = []string{"id:int", "nodeId:string", "nodeHttpAddress:string", "logsLink:string", "containerId:string",
	"startTime:int", "finishedTime:int", "appAttemptId:string", "appAttemptState:string"}

// Containers: every number a string, nodeHttpAddress with its scheme
// (recorded on 3.3.6).
var containerFields = []string{"containerId:string", "nodeId:string", "nodeHttpAddress:string", "containerState:string",
	"startedTime:numstr", "priority:numstr", "assignedNodeId:string", "allocatedMB:numstr", "allocatedVCores:numstr",
	"finishedTime:numstr", "elapsedTime:numstr", "logUrl:string", "containerExitStatus:numstr", "allocatedResources:object", "exposedPorts:string"}

// Capacity Scheduler queue objects (the 3.4 DAO drops usedResources and
// maxActiveApplications[PerUser], which the tables still list).
var queueFields = []string{"queueName:string", "queuePath:string", "capacity:number", "usedCapacity:number", "maxCapacity:number",
	"absoluteCapacity:number", "absoluteMaxCapacity:number", "absoluteUsedCapacity:number", "numApplications:int",
	"state:string", "resourcesUsed:object", "capacities:object", "resources:object"}

var leafFields = []string{"type:string", "numActiveApplications:int", "numPendingApplications:int", "numContainers:int",
	"maxApplications:int", "maxApplicationsPerUser:int", "userLimit:number", "userLimitFactor:number", "users:null|object"}

var partitionCapacityFields = []string{"partitionName:string", "capacity:number", "usedCapacity:number", "maxCapacity:number",
	"absoluteCapacity:number", "absoluteUsedCapacity:number", "absoluteMaxCapacity:number", "maxAMLimitPercentage:number",
	"effectiveMinResource:object", "effectiveMaxResource:object"}

var partitionUsageFields = []string{"partitionName:string", "used:object", "reserved:object", "pending:object", "amUsed:object", "amLimit:object"}

// MapredAppMasterRest.md's job object (the table, plus the progress
// fields of its examples); acls only with mapreduce.cluster.acls.enabled,
// which the recorded cluster (and the mini cluster) leave off.
var amJobFields = []string{"id:string", "name:string", "user:string", "state:string", "startTime:int", "finishTime:int",
	"elapsedTime:int", "mapsTotal:int", "mapsCompleted:int", "reducesTotal:int", "reducesCompleted:int", "diagnostics:string",
	"uberized:bool", "mapsPending:int", "mapsRunning:int", "reducesPending:int", "reducesRunning:int", "newReduceAttempts:int",
	"runningReduceAttempts:int", "failedReduceAttempts:int", "killedReduceAttempts:int", "successfulReduceAttempts:int",
	"newMapAttempts:int", "runningMapAttempts:int", "failedMapAttempts:int", "killedMapAttempts:int", "successfulMapAttempts:int",
	"mapProgress:number", "reduceProgress:number"}

// HistoryServerRest.md: the jobs list is a subset of the job object.
var hsJobsFields = []string{"submitTime:int", "startTime:int", "finishTime:int", "id:string", "name:string", "queue:string",
	"user:string", "state:string", "mapsTotal:int", "mapsCompleted:int", "reducesTotal:int", "reducesCompleted:int"}

var hsJobFields = append(append([]string{}, hsJobsFields...), "diagnostics:string", "uberized:bool", "avgMapTime:int",
	"avgReduceTime:int", "avgShuffleTime:int", "avgMergeTime:int", "failedReduceAttempts:int", "killedReduceAttempts:int",
	"successfulReduceAttempts:int", "failedMapAttempts:int", "killedMapAttempts:int", "successfulMapAttempts:int")

var taskFields = []string{"id:string", "state:string", "type:string", "successfulAttempt:string", "progress:number",
	"startTime:int", "finishTime:int", "elapsedTime:int"}

var attemptFields = []string{"id:string", "rack:string", "state:string", "type:string", "assignedContainerId:string",
	"nodeHttpAddress:string", "diagnostics:string", "progress:number", "startTime:int", "finishTime:int", "elapsedTime:int"}

var reduceAttemptFields = []string{"shuffleFinishTime:int", "mergeFinishTime:int", "elapsedShuffleTime:int",
	"elapsedMergeTime:int", "elapsedReduceTime:int"}

// ---- per-resource checks

func checkClusterInfo(t *testing.T, v map[string]any) {
	ci := sObj(t, v, "clusterInfo")
	sHas(t, ci, clusterInfoFields...)
	sEq(t, ci, "state", "STARTED")
	sEq(t, ci, "haState", "ACTIVE")
}

func checkNode(t *testing.T, n map[string]any) {
	t.Helper()
	sHas(t, n, nodeFields...)
	sHas(t, sObj(t, n, "resourceUtilization"), resourceUtilizationFields...)
	for _, k := range []string{"usedResource", "availableResource", "totalResource"} {
		checkResource(t, sObj(t, n, k))
	}
	total := sObj(t, n, "totalResource")
	if n["usedMemoryMB"].(float64)+n["availMemoryMB"].(float64) != total["memory"].(float64) {
		t.Errorf("node %v: used %v + avail %v MB != total %v", n["id"], n["usedMemoryMB"], n["availMemoryMB"], total["memory"])
	}
}

// checkResource: a ResourceInfo, {"memory","vCores","resourceInformations":{"resourceInformation":[...]}}.
func checkResource(t *testing.T, r map[string]any) {
	t.Helper()
	sHas(t, r, "memory:int", "vCores:int", "resourceInformations:object")
	infos := sArr(t, r, "resourceInformations.resourceInformation")
	names := map[string]bool{}
	for _, ri := range infos {
		ri := ri.(map[string]any)
		sHas(t, ri, "name:string", "value:int", "units:string", "resourceType:string", "minimumAllocation:int", "maximumAllocation:int", "attributes:object")
		names[fmt.Sprint(ri["name"])] = true
	}
	if !names["memory-mb"] || !names["vcores"] {
		t.Errorf("resourceInformation %v lacks memory-mb or vcores", names)
	}
}

func checkApp(t *testing.T, a map[string]any) {
	t.Helper()
	sHas(t, a, appFields...)
	if !strings.HasPrefix(fmt.Sprint(a["id"]), "application_") {
		t.Errorf("app id %v", a["id"])
	}
	if u := fmt.Sprint(a["trackingUrl"]); !strings.Contains(u, "/proxy/"+fmt.Sprint(a["id"])) {
		t.Errorf("trackingUrl %q is not the app's proxy URL", u)
	}
}

// checkScheduler checks the Capacity Scheduler tree and returns the leaves
// by name.
func checkScheduler(t *testing.T, v map[string]any) map[string]map[string]any {
	t.Helper()
	root := sObj(t, v, "scheduler.schedulerInfo")
	sHas(t, root, "type:string", "capacity:number", "usedCapacity:number", "maxCapacity:number", "queueName:string", "queues:object")
	sEq(t, root, "type", "capacityScheduler")
	sEq(t, root, "queueName", "root")
	sEq(t, root, "capacity", 100.0)
	leaves := map[string]map[string]any{}
	for _, q := range sArr(t, root, "queues.queue") {
		q := q.(map[string]any)
		sHas(t, q, queueFields...)
		sHas(t, q, leafFields...)
		sEq(t, q, "type", "capacitySchedulerLeafQueueInfo")
		if _, ok := q["queues"]; ok {
			t.Errorf("leaf %v has queues", q["queueName"])
		}
		checkResource(t, sObj(t, q, "resourcesUsed"))
		for _, p := range sArr(t, q, "capacities.queueCapacitiesByPartition") {
			sHas(t, p.(map[string]any), partitionCapacityFields...)
		}
		for _, p := range sArr(t, q, "resources.resourceUsagesByPartition") {
			sHas(t, p.(map[string]any), partitionUsageFields...)
		}
		leaves[fmt.Sprint(q["queueName"])] = q
		sEq(t, q, "queuePath", "root."+fmt.Sprint(q["queueName"]))
	}
	if len(leaves) != 2 || leaves["crypto"] == nil || leaves["sort"] == nil {
		t.Fatalf("leaves %v, want crypto and sort", leaves)
	}
	return leaves
}

// confProps reads a ConfInfo, {"property":[{"name","value"}]}.
func confProps(t *testing.T, v map[string]any) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, p := range sOneOrMany(t, v, "property") {
		p := p.(map[string]any)
		sHas(t, p, "name:string", "value:string")
		out[p["name"].(string)] = p["value"].(string)
	}
	if len(out) == 0 {
		t.Fatal("no properties")
	}
	return out
}

func checkVersion(want int) func(t *testing.T, v map[string]any) {
	return func(t *testing.T, v map[string]any) {
		sExactly(t, v, "versionID:int|numstr")
		if fmt.Sprint(v["versionID"]) != fmt.Sprint(want) {
			t.Errorf("versionID %v, want %d", v["versionID"], want)
		}
	}
}

func appCount(n int) func(t *testing.T, v map[string]any) {
	return func(t *testing.T, v map[string]any) {
		if got := len(sArr(t, v, "apps.app")); got != n {
			t.Errorf("%d apps, want %d", got, n)
		}
	}
}

func appsWhere(n int, key, want string) func(t *testing.T, v map[string]any) {
	return func(t *testing.T, v map[string]any) {
		apps := sArr(t, v, "apps.app")
		if len(apps) != n {
			t.Errorf("%d apps, want %d", len(apps), n)
		}
		for _, a := range apps {
			sEq(t, a.(map[string]any), key, want)
		}
	}
}

// containerList reads the containers of an attempt: Jersey drops the
// "containers" root and writes one container as an object (recorded).
func containerList(t *testing.T, v map[string]any) []any {
	t.Helper()
	if _, ok := v["containers"]; ok {
		t.Errorf(`containers must have no "containers" root (recorded): %s`, sShort(v))
	}
	return sOneOrMany(t, v, "container")
}

// nodeToLabels reads get-node-to-labels: {"nodeToLabels":{"entry":[{"key",
// "value":{"nodeLabelInfo":[...]}}]}}, lists possibly single objects.
func nodeToLabels(t *testing.T, v map[string]any) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, e := range sOneOrMany(t, v, "nodeToLabels.entry") {
		e := e.(map[string]any)
		sHas(t, e, "key:string", "value:object")
		var ls []string
		for _, l := range sOneOrMany(t, e, "value.nodeLabelInfo") {
			l := l.(map[string]any)
			sHas(t, l, "name:string", "exclusivity:string|bool")
			ls = append(ls, l["name"].(string))
		}
		out[e["key"].(string)] = ls
	}
	return out
}

func checkAMInfo(app string) func(t *testing.T, v map[string]any) {
	return func(t *testing.T, v map[string]any) {
		info := sObj(t, v, "info")
		sHas(t, info, "appId:string", "startedOn:int", "name:string", "user:string", "elapsedTime:int")
		sEq(t, info, "appId", app)
	}
}

func checkAMJob(t *testing.T, j map[string]any, id string) {
	t.Helper()
	sHas(t, j, amJobFields...)
	checkACLs(t, j)
	sEq(t, j, "id", id)
	sEq(t, j, "state", "RUNNING")
	sEq(t, j, "finishTime", 0.0)
	sEq(t, j, "mapsTotal", 256.0)
	sEq(t, j, "reducesTotal", 1.0)
	total := j["mapsCompleted"].(float64) + j["mapsRunning"].(float64) + j["mapsPending"].(float64)
	if total != 256 {
		t.Errorf("completed+running+pending maps = %v, want 256", total)
	}
	if j["runningMapAttempts"].(float64) != j["mapsRunning"].(float64) {
		t.Errorf("runningMapAttempts %v != mapsRunning %v (no speculation yet)", j["runningMapAttempts"], j["mapsRunning"])
	}
	p := j["mapProgress"].(float64)
	if done := 100 * j["mapsCompleted"].(float64) / 256; p < done || p > 100 {
		t.Errorf("mapProgress %v, want in [%v, 100]", p, done)
	}
}

// checkACLs: no "acls" without mapreduce.cluster.acls.enabled (recorded).
func checkACLs(t *testing.T, j map[string]any) {
	t.Helper()
	if _, ok := j["acls"]; ok {
		t.Errorf("acls with job ACLs disabled: %s", sShort(j))
	}
}

func checkJobCounters(id string) func(t *testing.T, v map[string]any) {
	return func(t *testing.T, v map[string]any) {
		jc := sObj(t, v, "jobCounters")
		sHas(t, jc, "id:string", "counterGroup:array")
		sEq(t, jc, "id", id)
		found := false
		for _, g := range sArr(t, jc, "counterGroup") {
			g := g.(map[string]any)
			sHas(t, g, "counterGroupName:string", "counter:array")
			for _, c := range sArr(t, g, "counter") {
				c := c.(map[string]any)
				sHas(t, c, "name:string", "totalCounterValue:int", "mapCounterValue:int", "reduceCounterValue:int")
				if c["name"] == "HDFS_BYTES_READ" {
					found = true
					sEq(t, g, "counterGroupName", "org.apache.hadoop.mapreduce.FileSystemCounter")
					if x, _ := c["totalCounterValue"].(float64); x <= 0 {
						t.Errorf("HDFS_BYTES_READ total %v", c["totalCounterValue"])
					}
				}
			}
		}
		if !found {
			t.Error("no HDFS_BYTES_READ job counter")
		}
	}
}

func checkTaskCounters(id string) func(t *testing.T, v map[string]any) {
	return func(t *testing.T, v map[string]any) {
		tc := sObj(t, v, "jobTaskCounters")
		sHas(t, tc, "id:string", "taskCounterGroup:array")
		sEq(t, tc, "id", id)
		for _, g := range sArr(t, tc, "taskCounterGroup") {
			g := g.(map[string]any)
			sHas(t, g, "counterGroupName:string", "counter:array")
			for _, c := range sArr(t, g, "counter") {
				sHas(t, c.(map[string]any), "name:string", "value:int")
			}
		}
	}
}

func checkAttemptCounters(id string) func(t *testing.T, v map[string]any) {
	return func(t *testing.T, v map[string]any) {
		ac := sObj(t, v, "jobTaskAttemptCounters")
		sHas(t, ac, "id:string", "taskAttemptCounterGroup:array")
		sEq(t, ac, "id", id)
		read := -1.0
		for _, g := range sArr(t, ac, "taskAttemptCounterGroup") {
			g := g.(map[string]any)
			sHas(t, g, "counterGroupName:string", "counter:array")
			for _, c := range sArr(t, g, "counter") {
				c := c.(map[string]any)
				sHas(t, c, "name:string", "value:int")
				if c["name"] == "HDFS_BYTES_READ" {
					read = c["value"].(float64)
				}
			}
		}
		if read <= 0 {
			t.Errorf("succeeded map attempt HDFS_BYTES_READ %v, want > 0", read)
		}
	}
}

func checkJobConf(queue string) func(t *testing.T, v map[string]any) {
	return func(t *testing.T, v map[string]any) {
		conf := sObj(t, v, "conf")
		sHas(t, conf, "path:string", "property:array")
		props := map[string]string{}
		for _, p := range sArr(t, conf, "property") {
			p := p.(map[string]any)
			sHas(t, p, "name:string", "value:string", "source:array")
			props[p["name"].(string)] = p["value"].(string)
		}
		for _, k := range []string{"mapreduce.job.name", "mapreduce.input.fileinputformat.inputdir", "mapreduce.job.tags", "mapreduce.map.memory.mb"} {
			if props[k] == "" {
				t.Errorf("job conf lacks %s", k)
			}
		}
		if q := strings.TrimPrefix(props["mapreduce.job.queuename"], "root."); q != queue {
			t.Errorf("mapreduce.job.queuename %q, want %s", props["mapreduce.job.queuename"], queue)
		}
	}
}

func checkTasks(n int, typ string) func(t *testing.T, v map[string]any) {
	return func(t *testing.T, v map[string]any) {
		tasks := sArr(t, v, "tasks.task")
		if len(tasks) != n {
			t.Errorf("%d tasks, want %d", len(tasks), n)
		}
		for _, tk := range tasks {
			tk := tk.(map[string]any)
			sHas(t, tk, taskFields...)
			if typ != "" {
				sEq(t, tk, "type", typ)
			}
		}
	}
}

func checkHistoryInfo(t *testing.T, v map[string]any) {
	hi := sObj(t, v, "historyInfo")
	sHas(t, hi, "startedOn:int", "hadoopVersion:string", "hadoopBuildVersion:string", "hadoopVersionBuiltOn:string")
}

// taskIn returns the first task of a type and state and its last attempt.
func taskIn(t *testing.T, j rmweb.Job, typ, state string) (task, attempt string) {
	t.Helper()
	for _, tk := range j.Tasks {
		if tk.Type == typ && tk.State == state && len(tk.Attempts) > 0 {
			return tk.ID, tk.Attempts[len(tk.Attempts)-1].ID
		}
	}
	t.Fatalf("job %s has no %s task %s with an attempt", j.ID, typ, state)
	return "", ""
}

// ---- JSON helpers

// sRemote checks Hadoop's error body, {"RemoteException":{"exception",
// "message","javaClassName"}}, and nothing else.
func sRemote(exception, class, msgPrefix string) func(t *testing.T, v map[string]any) {
	return func(t *testing.T, v map[string]any) {
		t.Helper()
		sExactly(t, v, "RemoteException:object")
		re := sObj(t, v, "RemoteException")
		sExactly(t, re, "exception:string", "message:string", "javaClassName:string")
		sEq(t, re, "exception", exception)
		sEq(t, re, "javaClassName", class)
		if m, _ := re["message"].(string); !strings.HasPrefix(m, msgPrefix) {
			t.Errorf("message %q, want prefix %q", m, msgPrefix)
		}
	}
}

// sGet follows a dotted path of object keys.
func sGet(t *testing.T, v any, path string) any {
	t.Helper()
	cur := v
	for _, k := range strings.Split(path, ".") {
		o, ok := cur.(map[string]any)
		if !ok {
			t.Fatalf("%s: %q is reached through a non-object: %s", path, k, sShort(cur))
		}
		if cur, ok = o[k]; !ok {
			t.Fatalf("%s: no %q in %s", path, k, sShort(o))
		}
	}
	return cur
}

func sObj(t *testing.T, v any, path string) map[string]any {
	t.Helper()
	o, ok := sGet(t, v, path).(map[string]any)
	if !ok {
		t.Fatalf("%s is not an object: %s", path, sShort(sGet(t, v, path)))
	}
	return o
}

func sArr(t *testing.T, v any, path string) []any {
	t.Helper()
	a, ok := sGet(t, v, path).([]any)
	if !ok {
		t.Fatalf("%s is not an array: %s", path, sShort(sGet(t, v, path)))
	}
	return a
}

// sOneOrMany reads a list Jersey's default JSON may write as an array, a
// single object (one element) or null (none).
func sOneOrMany(t *testing.T, v any, path string) []any {
	t.Helper()
	switch x := sGet(t, v, path).(type) {
	case []any:
		return x
	case map[string]any:
		return []any{x}
	case nil:
		return nil
	default:
		t.Fatalf("%s is neither a list nor an object: %s", path, sShort(x))
		return nil
	}
}

// sHas checks field specs "name[?]:type[|type...]".
func sHas(t *testing.T, o map[string]any, specs ...string) {
	t.Helper()
	for _, spec := range specs {
		name, types, _ := strings.Cut(spec, ":")
		optional := strings.HasSuffix(name, "?")
		name = strings.TrimSuffix(name, "?")
		v, ok := o[name]
		if !ok {
			if !optional {
				t.Errorf("field %q missing from %s", name, sShort(o))
			}
			continue
		}
		if !sTypeOK(v, types) {
			t.Errorf("field %q = %s, want %s", name, sShort(v), types)
		}
	}
}

// sExactly checks the specs and that the object has no other field.
func sExactly(t *testing.T, o map[string]any, specs ...string) {
	t.Helper()
	sHas(t, o, specs...)
	if len(o) != len(specs) {
		t.Errorf("want exactly %v, got %s", specs, sShort(o))
	}
}

func sTypeOK(v any, types string) bool {
	for _, typ := range strings.Split(types, "|") {
		ok := false
		switch typ {
		case "string":
			_, ok = v.(string)
		case "number":
			_, ok = v.(float64)
		case "int":
			f, isNum := v.(float64)
			ok = isNum && f == math.Trunc(f)
		case "numstr":
			s, isStr := v.(string)
			ok = isStr && s != "" && strings.Trim(s, "0123456789") == ""
		case "bool":
			_, ok = v.(bool)
		case "object":
			_, ok = v.(map[string]any)
		case "array":
			_, ok = v.([]any)
		case "null":
			ok = v == nil
		}
		if ok {
			return true
		}
	}
	return false
}

func sEq(t *testing.T, o map[string]any, key string, want any) {
	t.Helper()
	if got := o[key]; got != want {
		t.Errorf("%s = %s, want %v", key, sShort(got), want)
	}
}

func sShort(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 400 {
		return string(b[:400]) + "…"
	}
	return string(b)
}
