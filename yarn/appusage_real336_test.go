package yarn

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// leanRecordedApps serves the recorded running apps as the real RM answers
// deSelects=resourceInfo (AppInfo leaves it null, Jersey omits it), with
// edit applied to each app; it records the deSelects asked.
func leanRecordedApps(t *testing.T, rp *replay, edit func(app map[string]any), asked *[]string) {
	t.Helper()
	rec := loadRecorded(t, "running/rm_apps_states_RUNNING")
	rp.handle("/ws/v1/cluster/apps", func(w http.ResponseWriter, r *http.Request) {
		ds := r.URL.Query().Get("deSelects")
		*asked = append(*asked, ds)
		if !strings.Contains(ds, "resourceInfo") {
			rec.serve(w, nil)
			return
		}
		var body map[string]map[string][]map[string]any
		dec := json.NewDecoder(bytes.NewReader(rec.body))
		dec.UseNumber()
		if err := dec.Decode(&body); err != nil {
			t.Error(err)
			return
		}
		for _, a := range body["apps"]["app"] {
			delete(a, "resourceInfo")
			if edit != nil {
				edit(a)
			}
		}
		w.Header().Set("Content-Type", "application/json;charset=utf-8")
		json.NewEncoder(w).Encode(body)
	})
}

// Against the recorded 3.3.6 answers: the next snapshot reads apps without
// resourceInfo; unchanged apps keep what the first read said. An app whose
// allocation changed is placed by its queue's use: root.sort uses the
// default partition only (the recorded scheduler answer), so 0004 is all
// there, derived rather than estimated, its AM's use kept (same AM
// container).
func TestReal336LeanAppsRead(t *testing.T) {
	for _, changed := range []bool{false, true} {
		rp := newReplay(t)
		realRunningRM(t, rp)
		var asked []string
		var edit func(map[string]any)
		if changed {
			edit = func(a map[string]any) {
				if a["id"] == realApp4 {
					a["runningContainers"], a["allocatedMB"], a["allocatedVCores"] = 8, 4352, 8
				}
			}
		}
		leanRecordedApps(t, rp, edit, &asked)
		c, err := New(Config{RMAddresses: []string{rp.URL}, Retries: -1})
		if err != nil {
			t.Fatal(err)
		}
		first, err := c.Observe(context.Background(), ObserveOptions{})
		if err != nil {
			t.Fatal(err)
		}
		next, err := c.Observe(context.Background(), ObserveOptions{Now: first.Time})
		if err != nil {
			t.Fatal(err)
		}
		if len(asked) != 2 || strings.Contains(asked[0], "resourceInfo") || !strings.Contains(asked[1], "resourceInfo") {
			t.Fatalf("changed %v: deSelects asked %q: want a full read, then one without resourceInfo", changed, asked)
		}
		was := map[string]cluster.App{}
		for _, a := range first.Apps {
			was[a.ID] = a
		}
		for _, a := range next.Apps {
			if a.UsageEstimated {
				t.Errorf("changed %v: %s estimated", changed, a.ID)
			}
			want := was[a.ID].UsageByPartition
			if changed && a.ID == realApp4 {
				want = map[string]cluster.AppPartitionUsage{"": {Used: cluster.Resource{MemoryMB: 4352, VCores: 8}, AMUsed: cluster.Resource{MemoryMB: 768, VCores: 1}}}
			}
			if !reflect.DeepEqual(a.UsageByPartition, want) {
				t.Errorf("changed %v: %s use %+v, want %+v", changed, a.ID, a.UsageByPartition, want)
			}
		}
	}
}
