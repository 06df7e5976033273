package report

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar/report/browsertest"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/experiment"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
)

func chromiumOrSkip(t *testing.T) string {
	t.Helper()
	chromium := browsertest.FindChromium()
	if chromium == "" {
		t.Skip("chromium not installed (no chromium, chromium-browser or google-chrome on PATH; `apt-get install -y chromium`, as .ci/run does): skipping the browser test")
	}
	return chromium
}

// serve serves one rendered page for the browser.
func serve(t *testing.T, html []byte) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(html)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// inRange checks a chart drew points and that its values lie in [lo, hi].
func inRange(t *testing.T, charts map[string]browsertest.Chart, id string, lo, hi float64) {
	t.Helper()
	c, ok := charts[id]
	switch {
	case !ok:
		t.Errorf("chart %s missing; charts: %v", id, charts)
	case c.Points == 0:
		t.Errorf("chart %s drew no points", id)
	case c.Min < lo || c.Max > hi:
		t.Errorf("chart %s values %.3g..%.3g outside [%g, %g]", id, c.Min, c.Max, lo, hi)
	}
}

// TestBrowserReportDemoRun runs a shrunk hetero-100 (testdata/hetero-mini:
// 12 nodes of three types, 4 queues, 28 jobs, half with deadlines) under
// stock capacities and steered by the sidecar, as `make demo` does, renders
// the report with the stock run as the baseline, loads it in headless
// Chromium and checks every chart drew data in range without script errors.
func TestBrowserReportDemoRun(t *testing.T) {
	chromium := chromiumOrSkip(t)
	// The experiment names its files after the scenario: run from testdata
	// so the name has no slash.
	t.Chdir("testdata")
	const scenario, seed = "hetero-mini.yaml", 1
	stock, err := experiment.RunStatic(scenario, seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	side, err := experiment.RunSidecar(scenario, seed, experiment.SidecarOptions{WarmupSeed: seed + 100, MCSamples: 50})
	if err != nil {
		t.Fatal(err)
	}
	conv := func(js []sim.JobResult) []JobOutcome {
		var out []JobOutcome
		for _, j := range js {
			out = append(out, JobOutcome{AppID: j.AppID, Name: j.Name, Class: j.Class, Queue: j.Queue, Submit: j.Submit, Finish: j.Finish, Deadline: j.Deadline})
		}
		return out
	}
	var buf bytes.Buffer
	err = Render(&buf, side.Status, Options{Title: "hetero-mini", Generated: time.Unix(0, 0),
		Outcomes: &Outcomes{Baseline: "the same jobs under stock capacities", BaselineJobs: conv(stock.Jobs), Steered: conv(side.Jobs)}})
	if err != nil {
		t.Fatal(err)
	}
	dom, shot := browsertest.LoadInBrowser(t, chromium, serve(t, buf.Bytes()))
	if errs := browsertest.ScriptErrors(dom); errs != "" {
		t.Fatalf("the page's scripts failed: %s", errs)
	}
	if !strings.Contains(dom, `data-rendered="yes"`) {
		t.Fatal("the page's script did not run to the end")
	}
	charts := browsertest.Charts(dom)
	// Two partitions (default, gpu): guarantee and use in % of the partition.
	for _, id := range []string{"part0-guarantee", "part0-used", "part1-guarantee", "part1-used"} {
		inRange(t, charts, id, 0, 100.001)
	}
	// Per queue ΣPS and fair share: PS is a share of a job's best, so ≥ 0
	// and bounded by the jobs' count (4 queues, 28 jobs).
	for _, id := range []string{"share0", "share1", "share2", "share3"} {
		inRange(t, charts, id, 0, 28)
	}
	// Completion times in minutes, positive and under the 48 h run limit.
	inRange(t, charts, "boxes", 0, 48*60)
	// Deadline timeline in minutes from the run's start.
	inRange(t, charts, "timeline", -60, 48*60)
	inRange(t, charts, "mutations", 1, 120) // a plan per 30 s cycle at most
	if charts["jobps-chart"].Points != 0 {
		t.Error("the per-job PS chart is drawn before the jobs section is opened (jobs are one click down)")
	}
	if n := strings.Count(dom, "<details><summary>properties"); n == 0 {
		t.Error("no plan has its raw property diff behind a disclosure")
	}
	if keep := os.Getenv("KEEP_SCREENSHOT"); keep != "" {
		if b, err := os.ReadFile(shot); err == nil {
			_ = os.WriteFile(keep, b, 0o644)
		}
	}
	t.Logf("%d cycles, %d applied; charts: %v", side.Cycles, side.Applied, charts)
}

// TestBrowserReportJobsSection opens the jobs section (#jobs) and checks
// its charts draw: per-job PS over time and each job's completion-time CDF.
func TestBrowserReportJobsSection(t *testing.T) {
	chromium := chromiumOrSkip(t)
	var buf bytes.Buffer
	if err := Render(&buf, sampleStatus(), Options{Generated: time.Unix(0, 0), Outcomes: sampleOutcomes()}); err != nil {
		t.Fatal(err)
	}
	dom, _ := browsertest.LoadInBrowser(t, chromium, serve(t, buf.Bytes())+"/#jobs")
	if errs := browsertest.ScriptErrors(dom); errs != "" {
		t.Fatalf("the page's scripts failed: %s", errs)
	}
	charts := browsertest.Charts(dom)
	inRange(t, charts, "jobps-chart", 0, 1)
	inRange(t, charts, "cdf0", 0, 1)
	inRange(t, charts, "boxes", 0, 100)
	inRange(t, charts, "timeline", 0, 100)
}
