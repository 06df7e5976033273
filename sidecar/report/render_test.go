package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar"
)

// SampleStatus is a small status with every section filled, for tests.
func sampleStatus() sidecar.Status {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	dl := t0.Add(90 * time.Minute)
	p50, p90, pm := t0.Add(60*time.Minute), t0.Add(80*time.Minute), 0.93
	return sidecar.Status{
		Time: t0, RM: "http://rm:8088", Mode: sidecar.ModeDryRun, SumPS: 1.25, MinPS: 0.6, BoundPS: 1.27,
		Jobs: []sidecar.JobStatus{{AppID: "application_1_0001", Name: "crypto-1", Queue: "root.crypto", Class: "crypto", PS: 0.6,
			Progress: 0.4, Deadline: &dl, P50: &p50, P90: &p90, PMeet: &pm, Needed: 12, Verdict: "on track",
			CDF: []sidecar.CDFPoint{{T: t0.Add(50 * time.Minute), P: 0.1}, {T: p50, P: 0.5}, {T: p90, P: 0.9}}}},
		Rates: []sidecar.RateStatus{{Class: "crypto", NodeType: "gpu", Ratio: 2, Low: 1.9, High: 2.1, Samples: 40, Known: true},
			{Class: "crypto", NodeType: "cpu", Ratio: 1, Low: 1, High: 1, Samples: 40, Known: true},
			{Class: "sort", NodeType: "gpu", Samples: 1}},
		History: []sidecar.PSPoint{{Time: t0, SumPS: 1.0, MinPS: 0.5, Bound: 1.27, Jobs: map[string]float64{"application_1_0001": 0.5}},
			{Time: t0.Add(30 * time.Second), SumPS: 1.25, MinPS: 0.6, Bound: 1.27, Jobs: map[string]float64{"application_1_0001": 0.6}}},
		Plans: []sidecar.PlanRecord{{Time: t0, Result: sidecar.ResultDryRun, Reasons: []string{"queue crypto: gpu 50→75%"},
			Changes: []sidecar.Change{{Queue: "root.crypto", Property: "accessible-node-labels.gpu.capacity", From: "50", To: "75", Limited: true}}}},
	}
}

func TestRenderHasEverySection(t *testing.T) {
	var buf bytes.Buffer
	if err := Render(&buf, sampleStatus(), Options{Generated: time.Unix(0, 0)}); err != nil {
		t.Fatal(err)
	}
	html := buf.String()
	for _, want := range []string{
		`id="ps-chart"`, `id="cr-heatmap"`, "2.00×", "unknown", "root.crypto", "on track", "93%",
		"queue crypto: gpu 50→75%", "(step-limited)", `"deadline":90`, "Chart.defaults.animation",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(html, "https://") && strings.Contains(html, "<script src=") {
		t.Error("report must not load scripts from the network (it is mailed and opened offline)")
	}
}
