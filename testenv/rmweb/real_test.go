package rmweb_test

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
)

// The recordings of a real Hadoop 3.3.6 cluster (testdata/real-3.3.6, copied
// from ../shared/real-hadoop-3.3.6) against the mini cluster serving the
// same layout in the 3.3.6 dialect (testdata/real336.yaml).

const realDir = "testdata/real-3.3.6"

func readRecorded(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(realDir, name))
	if err != nil {
		t.Fatalf("recording: %v", err)
	}
	return b
}

// jsonType names a JSON value's type for shape comparison.
func jsonType(v any) string {
	switch v.(type) {
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "bool"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

// shapeDiff lists where mini's JSON structure differs from real's: keys
// present on one side only and values of different JSON types, by path. A
// Jersey list may be an object (one element) on one side and an array on
// the other (another count): both are compared by their elements. Arrays
// are compared through the union of their elements' shapes.
func shapeDiff(path string, real, mini any, out *[]string) {
	rt, mt := jsonType(real), jsonType(mini)
	switch {
	case rt == "array" && mt == "array":
		r, m := real.([]any), mini.([]any)
		if len(r) > 0 && len(m) > 0 {
			shapeDiff(path+"[]", mergeElems(r), mergeElems(m), out)
		}
		return
	case rt == "object" && mt == "array":
		if m := mini.([]any); len(m) > 0 {
			shapeDiff(path+"[]", real, mergeElems(m), out)
		}
		return
	case rt == "array" && mt == "object":
		if r := real.([]any); len(r) > 0 {
			shapeDiff(path+"[]", mergeElems(r), mini, out)
		}
		return
	case rt != mt:
		*out = append(*out, fmt.Sprintf("%s: real %s, mini %s", path, rt, mt))
		return
	case rt != "object":
		return
	}
	r, m := real.(map[string]any), mini.(map[string]any)
	for _, k := range slices.Sorted(maps.Keys(r)) {
		if _, ok := m[k]; !ok {
			*out = append(*out, fmt.Sprintf("%s.%s: missing in mini", path, k))
			continue
		}
		shapeDiff(path+"."+k, r[k], m[k], out)
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if _, ok := r[k]; !ok {
			*out = append(*out, fmt.Sprintf("%s.%s: only in mini", path, k))
		}
	}
}

// mergeElems is the union of a list's object elements (first value of each
// key wins), or its first element when they are not objects.
func mergeElems(l []any) any {
	merged := map[string]any{}
	for _, e := range l {
		o, ok := e.(map[string]any)
		if !ok {
			return l[0]
		}
		for k, v := range o {
			if _, seen := merged[k]; !seen {
				merged[k] = v
			}
		}
	}
	return merged
}

func TestShapeDiff(t *testing.T) {
	var got []string
	real := map[string]any{"a": map[string]any{"x": 1.0, "y": "s"}, "l": map[string]any{"k": 1.0}, "n": "1"}
	mini := map[string]any{"a": map[string]any{"x": "1", "z": true}, "l": []any{map[string]any{"k": 2.0}}, "n": 1.0}
	shapeDiff("", real, mini, &got)
	want := []string{".a.x: real number, mini string", ".a.y: missing in mini", ".a.z: only in mini", ".n: real string, mini number"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("shapeDiff:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// realCluster is the mini cluster laid out as the recorded one, with both
// jobs running (40 virtual seconds in) and a twin run to its end.
type realCluster struct {
	running, finished *sim.TestCluster
	crypto, sort      string // running app ids
	finishedSort      string // the sort app of the finished run
}

func startRealCluster(t *testing.T) realCluster {
	t.Helper()
	rc := realCluster{running: sim.Start(t, "testdata/real336.yaml", 1), finished: sim.Start(t, "testdata/real336.yaml", 1)}
	rc.running.Step(40 * time.Second)
	for _, a := range rc.running.Apps() {
		if a.State != "RUNNING" {
			t.Fatalf("app %s is %s at 40 s, want RUNNING", a.ID, a.State)
		}
		switch a.Queue {
		case "root.crypto":
			rc.crypto = a.ID
		case "root.sort":
			rc.sort = a.ID
		}
	}
	if !rc.finished.RunUntilDone(time.Hour) {
		t.Fatal("real336 did not finish in an hour")
	}
	for _, a := range rc.finished.Apps() {
		if a.Queue == "root.sort" {
			rc.finishedSort = a.ID
		}
	}
	if rc.crypto == "" || rc.sort == "" || rc.finishedSort == "" {
		t.Fatalf("apps not found: %+v", rc)
	}
	return rc
}

func get(t *testing.T, url string) (*http.Response, []byte) {
	t.Helper()
	resp, err := noFollow.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

// TestRealShapes compares every recorded JSON endpoint with the mini
// cluster's answer key by key and type by type. Differences the mini
// cluster does not model are listed per endpoint, and the list must be
// exact: a difference that disappears must be struck from it.
func TestRealShapes(t *testing.T) {
	rc := startRealCluster(t)
	app := func(id string) string { return "/ws/v1/cluster/apps/" + id }
	attempt := func(id string) string { return "appattempt" + strings.TrimPrefix(id, "application") + "_000001" }
	job := func(id string) string { return "job" + strings.TrimPrefix(id, "application") }
	am := func(id string) string { return "/proxy/" + id + "/ws/v1/mapreduce/jobs/" + job(id) }
	sortJob := job(rc.finishedSort)
	hs := "/ws/v1/history/mapreduce/jobs/" + sortJob
	running, finished := rc.running.URL, rc.finished.URL
	type row struct {
		recorded, base, path string
		status               int
		notModelled          []string
	}
	rows := []row{
		{"running/rm_info.body", running, "/ws/v1/cluster/info", 200, nil},
		{"running/rm_metrics.body", running, "/ws/v1/cluster/metrics", 200, nil},
		{"running/rm_nodes.body", running, "/ws/v1/cluster/nodes", 200, nil},
		{"running/rm_nodes_states_RUNNING.body", running, "/ws/v1/cluster/nodes?states=RUNNING", 200, nil},
		{"running/rm_apps.body", running, "/ws/v1/cluster/apps", 200, nil},
		{"running/rm_apps_states_RUNNING.body", running, "/ws/v1/cluster/apps?states=RUNNING", 200, nil},
		{"running/rm_apps_limit_1.body", running, "/ws/v1/cluster/apps?limit=1", 200, nil},
		{"running/rm_app_application_1795412916926_0003.body", running, app(rc.crypto), 200, nil},
		{"running/rm_app_application_1795412916926_0004.body", running, app(rc.sort), 200, nil},
		{"running/rm_app_application_1795412916926_0003_appattempts.body", running, app(rc.crypto) + "/appattempts", 200, nil},
		{"running/rm_app_application_1795412916926_0003_containers.body", running, app(rc.crypto) + "/appattempts/" + attempt(rc.crypto) + "/containers", 200, nil},
		{"running/rm_app_application_1795412916926_0004_containers.body", running, app(rc.sort) + "/appattempts/" + attempt(rc.sort) + "/containers", 200, nil},
		{"running/rm_app_application_1795412916926_0003_priority.body", running, app(rc.crypto) + "/priority", 200, nil},
		{"running/rm_app_application_1795412916926_0003_queue.body", running, app(rc.crypto) + "/queue", 200, nil},
		{"running/rm_app_application_1795412916926_0003_state.body", running, app(rc.crypto) + "/state", 200, nil},
		{"running/rm_apps_application_0_0000.body", running, app("application_0_0000"), 404, nil},
		{"running/rm_nodes_nosuch_1.body", running, "/ws/v1/cluster/nodes/nosuch:1", 404, nil},
		{"running/rm_scheduler.body", running, "/ws/v1/cluster/scheduler", 200, nil},
		{"running/rm_scheduler-conf.body", running, "/ws/v1/cluster/scheduler-conf", 200, nil},
		{"running/rm_scheduler-conf_version.body", running, "/ws/v1/cluster/scheduler-conf/version", 200, nil},
		{"running/rm_get-node-labels.body", running, "/ws/v1/cluster/get-node-labels", 200, nil},
		{"running/rm_get-node-to-labels.body", running, "/ws/v1/cluster/get-node-to-labels", 200, nil},
		{"running/rm_label-mappings.body", running, "/ws/v1/cluster/label-mappings", 200, nil},
		{"running/am_application_1795412916926_0004_info.body", running, "/proxy/" + rc.sort + "/ws/v1/mapreduce/info", 200, nil},
		{"running/am_application_1795412916926_0004_jobs.body", running, "/proxy/" + rc.sort + "/ws/v1/mapreduce/jobs", 200, nil},
		{"running/am_application_1795412916926_0004_job.body", running, am(rc.sort), 200, nil},
		{"running/am_application_1795412916926_0004_tasks.body", running, am(rc.sort) + "/tasks", 200, nil},
		{"running/am_application_1795412916926_0004_jobattempts.body", running, am(rc.sort) + "/jobattempts", 200, nil},
		{"running/am_application_1795412916926_0004_counters.body", running, am(rc.sort) + "/counters", 200, nil},
		{"running/am_application_1795412916926_0004_task_attempts.body", running, am(rc.sort) + "/tasks/task" + strings.TrimPrefix(job(rc.sort), "job") + "_m_000000/attempts", 200, nil},
		{"finished/rm_app_finished.body", finished, app(rc.finishedSort), 200, nil},
		{"finished/rm_app_finished_containers.body", finished, app(rc.finishedSort) + "/appattempts/" + attempt(rc.finishedSort) + "/containers", 200, nil},
		{"finished/jhs_info.body", finished, "/ws/v1/history/info", 200, nil},
		{"finished/jhs_jobs.body", finished, "/ws/v1/history/mapreduce/jobs", 200, nil},
		{"finished/jhs_jobs_limit1.body", finished, "/ws/v1/history/mapreduce/jobs?limit=1", 200, nil},
		{"finished/jhs_job.body", finished, hs, 200, nil},
		{"finished/jhs_job_tasks.body", finished, hs + "/tasks", 200, nil},
		{"finished/jhs_job_tasks_r.body", finished, hs + "/tasks?type=r", 200, nil},
		{"finished/jhs_job_counters.body", finished, hs + "/counters", 200, nil},
		{"finished/jhs_job_attempts.body", finished, hs + "/jobattempts", 200, nil},
		{"finished/jhs_task_attempts.body", finished, hs + "/tasks/task" + strings.TrimPrefix(sortJob, "job") + "_m_000000/attempts", 200, nil},
		{"finished/jhs_task_attempt.body", finished, hs + "/tasks/task" + strings.TrimPrefix(sortJob, "job") + "_m_000000/attempts/attempt" + strings.TrimPrefix(sortJob, "job") + "_m_000000_0", 200, nil},
		{"finished/jhs_task_attempt_counters.body", finished, hs + "/tasks/task" + strings.TrimPrefix(sortJob, "job") + "_m_000000/attempts/attempt" + strings.TrimPrefix(sortJob, "job") + "_m_000000_0/counters", 200, nil},
		{"finished/jhs_reduce_attempts.body", finished, hs + "/tasks/task" + strings.TrimPrefix(sortJob, "job") + "_r_000000/attempts", 200, nil},
		{"finished/jhs_job_unknown.body", finished, "/ws/v1/history/mapreduce/jobs/job_0_0000", 404, nil},
	}
	for _, r := range rows {
		t.Run(r.recorded, func(t *testing.T) {
			var real any
			if err := json.Unmarshal(readRecorded(t, r.recorded), &real); err != nil {
				t.Fatalf("recording is not JSON: %v", err)
			}
			resp, body := get(t, r.base+r.path)
			if resp.StatusCode != r.status {
				t.Fatalf("GET %s: %d, want %d as recorded: %.300s", r.path, resp.StatusCode, r.status, body)
			}
			var mini any
			if err := json.Unmarshal(body, &mini); err != nil {
				t.Fatalf("GET %s: not JSON: %v: %.300s", r.path, err, body)
			}
			var diffs []string
			shapeDiff("", real, mini, &diffs)
			want := map[string]bool{}
			for _, d := range r.notModelled {
				want[d] = true
			}
			for _, d := range diffs {
				if !want[d] {
					t.Errorf("GET %s: %s", r.path, d)
				}
				delete(want, d)
			}
			for d := range want {
				t.Errorf("listed as not modelled but matches now (strike it): %s", d)
			}
		})
	}
}
