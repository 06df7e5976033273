package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/sparkobs"
)

// Spark apps in status (text and JSON) and the HTML report (issue 36
// item 5): per app its class, stage in progress, tasks and executors per
// type; none read: no table, JSON [].
func TestSparkAppsShown(t *testing.T) {
	apps := []sparkobs.AppView{
		{AppID: "application_1_0007", Name: "nightly-sql", Queue: "root.etl", Class: "sql", Stage: "aggregate at SqlJob.scala:58", StageID: 1,
			StagesDone: 1, Stages: 2, TasksDone: 130, TasksActive: 16, TasksPending: 4,
			Executors: map[string]int{"cpu-new": 2, "cpu-old": 2}, Cores: map[string]int{"cpu-new": 8, "cpu-old": 8}},
		{AppID: "application_1_0008", Name: "features", Queue: "root.ml", Class: "features", StageID: -1, StagesDone: 2, Stages: 2, TasksDone: 60},
	}
	cases := []struct {
		name       string
		apps       []sparkobs.AppView
		text, html []string
		jsonApps   int
	}{
		{"two apps", apps,
			[]string{"2 Spark apps read:", "SPARK APP", "application_1_0007 nightly-sql", "1 aggregate at SqlJob.scala:58 (1 of 2 stages done)", "130/16/4",
				"cpu-new 2 (8 cores), cpu-old 2 (8 cores)", "none running (2 of 2 stages done)", "60/0/0"},
			[]string{`id="spark-apps"`, "nightly-sql", "1 aggregate at SqlJob.scala:58 (1 of 2 stages done)", "<td>130</td><td>16</td><td>4</td>",
				"cpu-new 2 (8 cores), cpu-old 2 (8 cores)", "none running"}, 2},
		{"none", nil, nil, nil, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := sampleStatus()
			st.Spark = c.apps
			var buf bytes.Buffer
			if err := WriteStatus(&buf, st); err != nil {
				t.Fatal(err)
			}
			text := buf.String()
			for _, want := range c.text {
				if !strings.Contains(text, want) {
					t.Errorf("status lacks %q:\n%s", want, text)
				}
			}
			if c.apps == nil && strings.Contains(text, "SPARK APP") {
				t.Errorf("status shows a Spark table without Spark apps:\n%s", text)
			}
			buf.Reset()
			if err := WriteStatusJSON(&buf, st); err != nil {
				t.Fatal(err)
			}
			var doc struct {
				SparkApps []sparkobs.AppView `json:"sparkApps"`
			}
			if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
				t.Fatal(err)
			}
			if len(doc.SparkApps) != c.jsonApps || doc.SparkApps == nil || !strings.Contains(buf.String(), `"sparkApps": [`) {
				t.Errorf("JSON sparkApps %+v, want %d (an array, never null)", doc.SparkApps, c.jsonApps)
			}
			if c.jsonApps > 0 && (doc.SparkApps[0].TasksPending != 4 || doc.SparkApps[0].Executors["cpu-old"] != 2) {
				t.Errorf("JSON app %+v, want 4 pending, 2 cpu-old executors", doc.SparkApps[0])
			}
			buf.Reset()
			if err := Render(&buf, st, Options{}); err != nil {
				t.Fatal(err)
			}
			html := buf.String()
			for _, want := range c.html {
				if !strings.Contains(html, want) {
					t.Errorf("report lacks %q", want)
				}
			}
			if c.apps == nil && strings.Contains(html, `id="spark-apps"`) {
				t.Error("report shows a Spark table without Spark apps")
			}
		})
	}
}
