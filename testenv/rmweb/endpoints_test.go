package rmweb_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
)

// Every endpoint the mini RM serves, checked for the shape Hadoop 3.4's
// ResourceManagerRest.md, MapredAppMasterRest.md and HistoryServerRest.md
// document: the wrapper objects, key field names and JSON types, and the
// RemoteException bodies and statuses of the error cases.
func TestEndpointShapes(t *testing.T) {
	c := sim.Start(t, "lee-gpu", 1)
	c.Step(3 * time.Minute) // both jobs running
	apps := c.Apps()
	if len(apps) < 2 {
		t.Fatalf("want 2 running apps, got %d", len(apps))
	}
	app := apps[0].ID
	job := "job" + strings.TrimPrefix(app, "application")
	node := c.Nodes()[0].ID
	// A second cluster runs to the end for the JobHistory endpoints.
	done := sim.Start(t, "lee-gpu", 1)
	if !done.RunUntilDone(24 * time.Hour) {
		t.Fatal("lee-gpu did not finish")
	}
	finishedApp := done.Apps()[0].ID
	finishedJob := "job" + strings.TrimPrefix(finishedApp, "application")

	type check func(t *testing.T, v map[string]any)
	cases := []struct {
		name, method, base, path, body string
		status                         int
		check                          check
	}{
		{"cluster info", "GET", c.URL, "/ws/v1/cluster/info", "", 200, has("clusterInfo", "id:number", "state:string", "haState:string", "resourceManagerVersion:string", "startedOn:number")},
		{"cluster metrics", "GET", c.URL, "/ws/v1/cluster/metrics", "", 200, has("clusterMetrics", "appsRunning:number", "totalMB:number", "availableMB:number", "totalVirtualCores:number", "activeNodes:number")},
		{"nodes", "GET", c.URL, "/ws/v1/cluster/nodes", "", 200, list("nodes", "node", "id:string", "rack:string", "state:string", "nodeHostName:string", "nodeHTTPAddress:string", "usedMemoryMB:number", "availMemoryMB:number", "usedVirtualCores:number", "availableVirtualCores:number", "numContainers:number", "totalResource:object")},
		{"node", "GET", c.URL, "/ws/v1/cluster/nodes/" + node, "", 200, has("node", "id:string", "state:string")},
		{"unknown node", "GET", c.URL, "/ws/v1/cluster/nodes/nope:1", "", 404, remote("NotFoundException")},
		{"node labels", "GET", c.URL, "/ws/v1/cluster/get-node-labels", "", 200, func(t *testing.T, v map[string]any) {
			if _, ok := v["nodeLabelInfo"]; !ok {
				t.Errorf("no nodeLabelInfo in %v", v)
			}
		}},
		{"node to labels", "GET", c.URL, "/ws/v1/cluster/get-node-to-labels", "", 200, func(t *testing.T, v map[string]any) {
			if _, ok := v["nodeToLabels"]; !ok {
				t.Errorf("no nodeToLabels in %v", v)
			}
		}},
		{"scheduler", "GET", c.URL, "/ws/v1/cluster/scheduler", "", 200, func(t *testing.T, v map[string]any) {
			si := obj(t, obj(t, v, "scheduler"), "schedulerInfo")
			if si["type"] != "capacityScheduler" {
				t.Errorf("scheduler type %v", si["type"])
			}
			qs := arr(t, obj(t, si, "queues"), "queue")
			if len(qs) != 2 {
				t.Fatalf("want the two leaf queues under root, got %d", len(qs))
			}
			q := qs[0].(map[string]any)
			for _, k := range []string{"queueName:string", "capacity:number", "maxCapacity:number", "absoluteCapacity:number", "usedCapacity:number", "numApplications:number", "queuePath:string", "capacities:object", "resources:object"} {
				typed(t, q, k)
			}
		}},
		{"scheduler-conf", "GET", c.URL, "/ws/v1/cluster/scheduler-conf", "", 200, list("", "property", "name:string", "value:string")},
		{"scheduler-conf version", "GET", c.URL, "/ws/v1/cluster/scheduler-conf/version", "", 200, func(t *testing.T, v map[string]any) {
			if _, ok := v["versionID"].(float64); !ok {
				t.Errorf("versionID not a number: %v", v)
			}
		}},
		{"scheduler-conf validate ok", "POST", c.URL, "/ws/v1/cluster/scheduler-conf/validate",
			`<sched-conf><update-queue><queue-name>root.crypto</queue-name><params><entry><key>capacity</key><value>60</value></entry></params></update-queue><update-queue><queue-name>root.sort</queue-name><params><entry><key>capacity</key><value>40</value></entry></params></update-queue></sched-conf>`, 200, nil},
		{"scheduler-conf rejected", "PUT", c.URL, "/ws/v1/cluster/scheduler-conf",
			`<sched-conf><update-queue><queue-name>root.crypto</queue-name><params><entry><key>capacity</key><value>70</value></entry></params></update-queue></sched-conf>`, 400, nil},
		{"apps", "GET", c.URL, "/ws/v1/cluster/apps?states=RUNNING", "", 200, list("apps", "app", "id:string", "name:string", "queue:string", "state:string", "finalStatus:string", "progress:number", "priority:number", "applicationTags:string", "allocatedMB:number", "allocatedVCores:number", "runningContainers:number", "startedTime:number", "trackingUrl:string", "amContainerLogs:string")},
		{"apps none", "GET", c.URL, "/ws/v1/cluster/apps?states=KILLED", "", 200, func(t *testing.T, v map[string]any) {
			if a, ok := v["apps"]; !ok || a != nil {
				t.Errorf(`no apps must read {"apps":null}, got %v`, v)
			}
		}},
		{"apps bad state", "GET", c.URL, "/ws/v1/cluster/apps?states=SLEEPING", "", 400, remote("BadRequestException")},
		{"app", "GET", c.URL, "/ws/v1/cluster/apps/" + app, "", 200, has("app", "id:string", "queue:string", "state:string")},
		{"unknown app", "GET", c.URL, "/ws/v1/cluster/apps/application_1_9999", "", 404, remote("NotFoundException")},
		{"app attempts", "GET", c.URL, "/ws/v1/cluster/apps/" + app + "/appattempts", "", 200, list("appAttempts", "appAttempt", "appAttemptId:string", "containerId:string", "nodeId:string", "startTime:number")},
		{"app priority", "GET", c.URL, "/ws/v1/cluster/apps/" + app + "/priority", "", 200, func(t *testing.T, v map[string]any) {
			if _, ok := v["priority"].(float64); !ok {
				t.Errorf("priority not a number: %v", v)
			}
		}},
		{"app priority put", "PUT", c.URL, "/ws/v1/cluster/apps/" + app + "/priority", `{"priority":3}`, 200, nil},
		{"app queue", "GET", c.URL, "/ws/v1/cluster/apps/" + app + "/queue", "", 200, func(t *testing.T, v map[string]any) {
			if _, ok := v["queue"].(string); !ok {
				t.Errorf("queue not a string: %v", v)
			}
		}},
		{"AM jobs", "GET", c.URL, "/proxy/" + app + "/ws/v1/mapreduce/jobs", "", 200, list("jobs", "job", "id:string", "name:string", "state:string", "mapsTotal:number", "mapsCompleted:number", "reducesTotal:number", "startTime:number", "elapsedTime:number")},
		{"AM tasks", "GET", c.URL, "/proxy/" + app + "/ws/v1/mapreduce/jobs/" + job + "/tasks?type=m", "", 200, list("tasks", "task", "id:string", "state:string", "type:string", "progress:number", "startTime:number")},
		{"AM job counters", "GET", c.URL, "/proxy/" + app + "/ws/v1/mapreduce/jobs/" + job + "/counters", "", 200, func(t *testing.T, v map[string]any) {
			groups := arr(t, obj(t, v, "jobCounters"), "counterGroup")
			if len(groups) == 0 || groups[0].(map[string]any)["counterGroupName"] == nil {
				t.Errorf("counter groups %v", groups)
			}
		}},
		{"JHS info", "GET", done.URL, "/ws/v1/history/info", "", 200, has("historyInfo", "startedOn:number", "hadoopVersion:string")},
		{"JHS jobs", "GET", done.URL, "/ws/v1/history/mapreduce/jobs", "", 200, list("jobs", "job", "id:string", "name:string", "queue:string", "user:string", "state:string", "submitTime:number", "startTime:number", "finishTime:number", "mapsTotal:number", "mapsCompleted:number")},
		{"JHS job", "GET", done.URL, "/ws/v1/history/mapreduce/jobs/" + finishedJob, "", 200, has("job", "id:string", "state:string", "finishTime:number")},
		{"JHS attempts", "GET", done.URL, "/ws/v1/history/mapreduce/jobs/" + finishedJob + "/tasks/task" + strings.TrimPrefix(finishedJob, "job") + "_m_000000/attempts", "", 200, list("taskAttempts", "taskAttempt", "id:string", "state:string", "type:string", "nodeHttpAddress:string", "rack:string", "startTime:number", "finishTime:number", "elapsedTime:number")},
		{"JHS job conf", "GET", done.URL, "/ws/v1/history/mapreduce/jobs/" + finishedJob + "/conf", "", 200, func(t *testing.T, v map[string]any) {
			props := arr(t, obj(t, v, "conf"), "property")
			found := false
			for _, p := range props {
				if p.(map[string]any)["name"] == "mapreduce.input.fileinputformat.inputdir" {
					found = true
				}
			}
			if !found {
				t.Error("job conf lacks mapreduce.input.fileinputformat.inputdir")
			}
		}},
		{"JHS unknown job", "GET", done.URL, "/ws/v1/history/mapreduce/jobs/job_1_9999", "", 404, remote("NotFoundException")},
		{"unknown resource", "GET", c.URL, "/ws/v1/cluster/nothing-here", "", 404, remote("NotFoundException")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, tc.base+tc.path, strings.NewReader(tc.body))
			req.Header.Set("Accept", "application/json")
			if tc.body != "" {
				if strings.HasPrefix(tc.body, "<") {
					req.Header.Set("Content-Type", "application/xml")
				} else {
					req.Header.Set("Content-Type", "application/json")
				}
			}
			q := req.URL.Query()
			q.Set("user.name", "yarn")
			req.URL.RawQuery = q.Encode()
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.status {
				t.Fatalf("%s %s: status %d, want %d: %s", tc.method, tc.path, resp.StatusCode, tc.status, body)
			}
			if resp.Header.Get("Date") == "" {
				t.Error("no Date header")
			}
			if tc.check == nil {
				return
			}
			if ct := resp.Header.Get("Content-Type"); !strings.Contains(ct, "json") {
				t.Fatalf("content type %q", ct)
			}
			var v map[string]any
			if err := json.Unmarshal(body, &v); err != nil {
				t.Fatalf("not a JSON object: %v: %s", err, body)
			}
			tc.check(t, v)
		})
	}
}

// The scheduler-conf PUT is refused when the conf store is not mutable,
// with Hadoop's words (the file store answers 400).
func TestSchedulerConfNotMutable(t *testing.T) {
	sc, err := sim.LoadScenario("lee-gpu")
	if err != nil {
		t.Fatal(err)
	}
	sc.FileStore = true
	c, err := sim.NewCluster(sc, 1)
	if err != nil {
		t.Fatal(err)
	}
	srv := httpServer(t, c.Handler())
	req, _ := http.NewRequest("PUT", srv+"/ws/v1/cluster/scheduler-conf?user.name=yarn", strings.NewReader(`<sched-conf></sched-conf>`))
	req.Header.Set("Content-Type", "application/xml")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 400 || !strings.Contains(string(body), "MutableConfScheduler") {
		t.Fatalf("file store: %d %s", resp.StatusCode, body)
	}
}

func has(wrapper string, fields ...string) func(t *testing.T, v map[string]any) {
	return func(t *testing.T, v map[string]any) {
		o := obj(t, v, wrapper)
		for _, f := range fields {
			typed(t, o, f)
		}
	}
}

func list(wrapper, item string, fields ...string) func(t *testing.T, v map[string]any) {
	return func(t *testing.T, v map[string]any) {
		o := v
		if wrapper != "" {
			o = obj(t, v, wrapper)
		}
		items := arr(t, o, item)
		if len(items) == 0 {
			t.Fatalf("%s.%s is empty", wrapper, item)
		}
		for _, f := range fields {
			typed(t, items[0].(map[string]any), f)
		}
	}
}

func remote(exception string) func(t *testing.T, v map[string]any) {
	return func(t *testing.T, v map[string]any) {
		re := obj(t, v, "RemoteException")
		if re["exception"] != exception {
			t.Errorf("exception %v, want %s", re["exception"], exception)
		}
		for _, k := range []string{"message:string", "javaClassName:string"} {
			typed(t, re, k)
		}
	}
}

func obj(t *testing.T, v map[string]any, k string) map[string]any {
	t.Helper()
	o, ok := v[k].(map[string]any)
	if !ok {
		t.Fatalf("%q is not an object in %v", k, short(v))
	}
	return o
}

func arr(t *testing.T, v map[string]any, k string) []any {
	t.Helper()
	a, ok := v[k].([]any)
	if !ok {
		t.Fatalf("%q is not an array in %v", k, short(v))
	}
	return a
}

// typed checks "name:type" with JSON types string, number, object, bool.
func typed(t *testing.T, o map[string]any, spec string) {
	t.Helper()
	name, typ, _ := strings.Cut(spec, ":")
	v, ok := o[name]
	if !ok {
		t.Errorf("field %q missing in %v", name, short(o))
		return
	}
	okType := false
	switch typ {
	case "string":
		_, okType = v.(string)
	case "number":
		_, okType = v.(float64)
	case "object":
		_, okType = v.(map[string]any)
	case "bool":
		_, okType = v.(bool)
	}
	if !okType {
		t.Errorf("field %q is %T, want %s", name, v, typ)
	}
}

func short(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 300 {
		b = append(b[:300], "…"...)
	}
	return string(b)
}

func httpServer(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}
