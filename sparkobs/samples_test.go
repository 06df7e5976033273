package sparkobs

import (
	"encoding/json"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/spark"
)

// recordedStage is Spark's recorded stage attempt of a YARN app with a
// speculated task (testdata, from shared/spark-rest/history-server).
func recordedStage(t *testing.T) StageRead {
	t.Helper()
	data, err := os.ReadFile("testdata/stage_attempt_with_speculation_yarn.json")
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		spark.Stage
		Tasks map[string]spark.Task `json:"tasks"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	r := StageRead{AppID: "application_1628109047826_1317105", AppClass: "shell", Stage: v.Stage}
	for _, tk := range v.Tasks {
		r.Tasks = append(r.Tasks, tk)
	}
	sort.Slice(r.Tasks, func(i, j int) bool { return r.Tasks[i].TaskID < r.Tasks[j].TaskID })
	return r
}

func TestSamples(t *testing.T) {
	// The recording's hosts: host-12291 (executor 7), host-5290 (5),
	// host-25261 (8), host-12413 (10).
	nodes := []cluster.Node{
		{ID: "host-12291:8041", Host: "host-12291"}, {ID: "host-5290:8041", Host: "host-5290"},
		{ID: "host-25261:8041", Host: "host-25261", Total: cluster.Resource{GPUs: 4}}, {ID: "host-12413:8041", Host: "host-12413"},
	}
	types := map[string]string{"host-12291:8041": "old", "host-5290:8041": "new", "host-25261:8041": "gpu", "host-12413:8041": "old"}
	cases := []struct {
		name     string
		gpus     map[string]int
		types    map[string]string
		want     map[int64]string // task id → node type of its sample
		wantRuns map[int64]time.Duration
	}{
		{name: "cpu executors: the killed speculative copy is no sample",
			types: types, want: map[int64]string{0: "old", 1: "new", 2: "gpu", 3: "old"},
			wantRuns: map[int64]time.Duration{0: 74 * time.Millisecond, 3: 60141 * time.Millisecond}},
		{name: "a GPU executor on a GPU node is its own type",
			gpus: map[string]int{"8": 1}, types: types, want: map[int64]string{0: "old", 1: "new", 2: "gpu/gpu", 3: "old"}},
		{name: "a GPU executor on a node without GPUs is the node's type",
			gpus: map[string]int{"7": 2}, types: types, want: map[int64]string{0: "old", 1: "new", 2: "gpu", 3: "old"}},
		{name: "hosts of no known type are skipped",
			types: map[string]string{"host-5290:8041": "new"}, want: map[int64]string{1: "new"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := recordedStage(t)
			r.ExecutorGPUs = tc.gpus
			got := Samples(r, NodesOf(nodes, tc.types))
			if len(got) != len(tc.want) {
				t.Fatalf("%d samples, want %d: %+v", len(got), len(tc.want), got)
			}
			for _, s := range got {
				var id int64
				for k := range tc.want {
					if s.AttemptID == "spark/application_1628109047826_1317105/"+itoa(k) {
						id = k
					}
				}
				if typ, ok := tc.want[id]; !ok || s.NodeType != typ {
					t.Errorf("%s on %q, want %q", s.AttemptID, s.NodeType, typ)
				}
				if s.Class != "shell/collect at <console>:27" || s.JobID != r.AppID || s.JobMaps != 4 || s.Type != "MAP" {
					t.Errorf("sample %+v", s)
				}
				if want, ok := tc.wantRuns[id]; ok && s.Elapsed != want {
					t.Errorf("%s: elapsed %v, want executorRunTime %v (not the duration)", s.AttemptID, s.Elapsed, want)
				}
			}
		})
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

func TestStageClassAndType(t *testing.T) {
	if got := StageClass("etl", "  count at  App.scala:42 "); got != "etl/count at App.scala:42" {
		t.Errorf("StageClass = %q", got)
	}
	for _, c := range []struct {
		typ  string
		gpus int
		has  bool
		want string
	}{{"gpu", 1, true, "gpu/gpu"}, {"gpu", 0, true, "gpu"}, {"cpu", 2, false, "cpu"}, {"", 1, true, ""}} {
		if got := ExecutorType(c.typ, c.gpus, c.has); got != c.want {
			t.Errorf("ExecutorType(%q, %d, %v) = %q, want %q", c.typ, c.gpus, c.has, got, c.want)
		}
	}
}
