package rmweb_test

import (
	"encoding/json"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
)

// unloadableMessage is the recorded 500's message with the parts that vary
// (NameNode, date, ids, times, counts, names) as patterns.
var unloadableMessage = regexp.MustCompile(`^org\.apache\.hadoop\.yarn\.exceptions\.YarnRuntimeException: Could not load history file ` +
	`hdfs://[^/]+/tmp/hadoop-yarn/staging/history/done/\d{4}/\d{2}/\d{2}/000000/` +
	`(job_\d+_\d{4})-\d+-[^-]+-[^-]+-\d+-\d+-\d+-SUCCEEDED-[^-]+-\d+\.jhist$`)

// A job whose history file JobHistory cannot load answers as recorded
// (jhs-unloadable/): listed by /jobs, 500 with a RemoteException on the
// job, its tasks and its conf; the other jobs are served as before.
func TestRealHistoryUnloadable(t *testing.T) {
	c := sim.Start(t, "testdata/real336.yaml", 1)
	if !c.RunUntilDone(time.Hour) {
		t.Fatal("real336 did not finish")
	}
	apps := c.Apps()
	if len(apps) < 2 {
		t.Fatalf("want two finished apps, got %d", len(apps))
	}
	bad, good := apps[0], apps[1]
	if err := c.DamageHistory(bad.ID); err != nil {
		t.Fatal(err)
	}
	badJob := "job" + strings.TrimPrefix(bad.ID, "application")

	var recListing, listing map[string]any
	json.Unmarshal(readRecorded(t, "jhs-unloadable/jhs_jobs_listing_with_unloadable.body"), &recListing)
	listing = getJSON(t, c.URL+"/ws/v1/history/mapreduce/jobs")
	if !strings.Contains(mustJSON(listing), badJob) {
		t.Errorf("the jobs list must still show %s: %s", badJob, sShort(listing))
	}
	if g, w := shapeOf(listing), shapeOf(recListing); g != w {
		t.Errorf("jobs list shape\n got %s\nwant %s (recorded)", g, w)
	}

	for path, rec := range map[string]string{
		"":       "jhs_job_unloadable",
		"/tasks": "jhs_job_unloadable_tasks",
		"/conf":  "jhs_job_unloadable_conf",
	} {
		var want map[string]map[string]string
		if err := json.Unmarshal(readRecorded(t, "jhs-unloadable/"+rec+".body"), &want); err != nil {
			t.Fatal(err)
		}
		wantCT := headerOf(t, "jhs-unloadable/"+rec+".headers", "Content-Type")
		if !unloadableMessage.MatchString(want["RemoteException"]["message"]) {
			t.Fatalf("the pattern does not match the recording %s: %q", rec, want["RemoteException"]["message"])
		}
		resp, body := get(t, c.URL+"/ws/v1/history/mapreduce/jobs/"+badJob+path)
		var got map[string]map[string]string
		if err := json.Unmarshal(body, &got); err != nil {
			t.Fatalf("GET %s: %v: %s", path, err, body)
		}
		if resp.StatusCode != 500 || resp.Header.Get("Content-Type") != wantCT {
			t.Errorf("GET job%s: %d %q, want 500 %q (recorded)", path, resp.StatusCode, resp.Header.Get("Content-Type"), wantCT)
		}
		re, wre := got["RemoteException"], want["RemoteException"]
		if len(got) != 1 || len(re) != 3 || re["exception"] != wre["exception"] || re["javaClassName"] != wre["javaClassName"] {
			t.Errorf("GET job%s: %s, want the recorded RemoteException %s", path, body, sShort(want))
		}
		if m := unloadableMessage.FindStringSubmatch(re["message"]); m == nil || m[1] != badJob {
			t.Errorf("GET job%s: message %q does not name %s's history file as recorded", path, re["message"], badJob)
		}
	}
	goodJob := "job" + strings.TrimPrefix(good.ID, "application")
	if resp, body := get(t, c.URL+"/ws/v1/history/mapreduce/jobs/"+goodJob+"/tasks"); resp.StatusCode != 200 {
		t.Errorf("the other job's tasks: %d %s", resp.StatusCode, body)
	}
}

func mustJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

// shapeOf is a JSON value's keys and types, lists by their first element.
func shapeOf(v any) string {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var b strings.Builder
		b.WriteString("{")
		for _, k := range keys {
			b.WriteString(k + ":" + shapeOf(x[k]) + ",")
		}
		return b.String() + "}"
	case []any:
		if len(x) == 0 {
			return "[]"
		}
		return "[" + shapeOf(x[0]) + "]"
	default:
		return jsonType(v)
	}
}

func headerOf(t *testing.T, file, name string) string {
	t.Helper()
	for _, l := range strings.Split(string(readRecorded(t, file)), "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(l), ":"); ok && strings.EqualFold(k, name) {
			return strings.TrimSpace(v)
		}
	}
	t.Fatalf("%s has no %s header", file, name)
	return ""
}
