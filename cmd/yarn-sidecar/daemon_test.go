package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil/promlint"

	"github.com/yarn-sidecar/yarn-sidecar/internal/testutil"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/report/browsertest"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
)

// TestDaemonEndToEnd builds the binary and runs `yarn-sidecar run` in apply
// mode against the mini cluster serving lee-gpu, then:
//   - lints /metrics with Prometheus' own promlint;
//   - loads /report in headless Chromium (when installed) and checks the PS
//     chart drew the cycles' points;
//   - sends SIGTERM and checks the daemon exits 0 and leaves YARN exactly
//     as the last audit record says (never half-configured).
func TestDaemonEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "yarn-sidecar")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	rm := sim.Start(t, "lee-gpu", 2)
	rm.Step(2 * time.Minute) // both jobs running
	cfg := filepath.Join(dir, "sidecar.yaml")
	audit := filepath.Join(dir, "audit.jsonl")
	conf := "mode: apply\nrm: [" + rm.URL + "]\njobhistory: " + rm.URL + "\nuser: yarn-sidecar\ninterval: 1s\n" +
		"store: " + filepath.Join(dir, "history.db") + "\naudit_log: " + audit + "\nlisten: 127.0.0.1:0\n" +
		// Fresh history: the first plans predict no ΣPS gain; the test needs one applied.
		"rate: {min_gain_percent: 0}\n" +
		// Nor can it prove a move does no harm (step_harm.go): off.
		"safety: {harm_margin_percent: -1, idle_window: -1s}\n"
	if err := os.WriteFile(cfg, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "run", "--config", cfg, "--log-level", "warn")
	cmd.Stderr = os.Stderr
	base, exited := startDaemon(t, cmd)

	// Let cycles run while virtual time moves on; poll, never sleep blind.
	cycles := 0.0
	if !testutil.Poll(60*time.Second, 200*time.Millisecond, func() bool {
		rm.Step(20 * time.Second)
		cycles = metricValue(t, base+"/metrics", "yarn_sidecar_cycles_total")
		return cycles >= 4
	}) {
		t.Fatalf("only %v cycles in 60 s", cycles)
	}

	// The build is in /metrics, from the daemon's own registry.
	if v := metricValue(t, base+"/metrics", "yarn_sidecar_build_info{"); v != 1 {
		t.Errorf("yarn_sidecar_build_info = %v, want 1", v)
	}
	// /metrics follows Prometheus' conventions.
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	problems, err := promlint.New(resp.Body).Lint()
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		if strings.HasPrefix(p.Metric, "yarn_sidecar_") {
			t.Errorf("promlint: %s: %s", p.Metric, p.Text)
		}
	}

	// /report in a real browser.
	if chromium := browsertest.FindChromium(); chromium != "" {
		dom, shot := browsertest.LoadInBrowser(t, chromium, base+"/report")
		pts := browsertest.ChartPoints(dom)
		if pts["part0-guarantee"] == 0 || pts["part0-used"] == 0 {
			t.Errorf("guarantee/use charts drew no points from the running daemon; charts: %v", pts)
		}
		if errs := browsertest.ScriptErrors(dom); errs != "" {
			t.Errorf("report scripts failed: %s", errs)
		}
		if keep := os.Getenv("KEEP_SCREENSHOT"); keep != "" {
			if b, err := os.ReadFile(shot); err == nil {
				_ = os.WriteFile(keep, b, 0o644)
			}
		}
		t.Logf("report from the daemon: chart points %v", pts)
	} else {
		t.Log("chromium not installed: browser part skipped")
	}

	// SIGTERM: the daemon finishes the cycle in progress and exits 0.
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for stop := false; !stop; {
		select {
		case err := <-exited:
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				t.Fatalf("daemon exited with %v after SIGTERM", err)
			}
			stop = true
		case <-time.After(30 * time.Second):
			t.Fatal("daemon did not exit within 30 s of SIGTERM")
		}
	}
	// YARN holds exactly what the last applied audit record says.
	_, version := rm.SchedulerConf()
	last := lastApplied(t, audit)
	if last == nil {
		t.Fatal("no plan was applied in apply mode")
	}
	if int64(last["versionAfter"].(float64)) != version {
		t.Fatalf("RM scheduler-conf version %d, last applied audit record says %v", version, last["versionAfter"])
	}
	conf2, _ := rm.SchedulerConf()
	for k, v := range last["after"].(map[string]any) {
		if conf2[k] != v.(string) {
			t.Errorf("RM has %s=%q, the audit log says %q was applied", k, conf2[k], v)
		}
	}
}

func metricValue(t *testing.T, url, name string) float64 {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	total := 0.0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, name) {
			var v float64
			f := strings.Fields(line)
			if err := json.Unmarshal([]byte(f[len(f)-1]), &v); err == nil {
				total += v
			}
		}
	}
	return total
}

func lastApplied(t *testing.T, path string) map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var last map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 4<<20)
	for sc.Scan() {
		var rec map[string]any
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("audit log line is not JSON: %v", err)
		}
		if rec["result"] == "applied" {
			last = rec
		}
	}
	return last
}

// startDaemon starts the daemon binary, kills it at the test's end, and
// returns the base URL of /metrics and /report it prints on stdout and a
// channel that receives its exit.
func startDaemon(t *testing.T, cmd *exec.Cmd) (string, <-chan error) {
	t.Helper()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	addrRe := regexp.MustCompile(`report at (http://\S+/report)`)
	lines := bufio.NewScanner(stdout)
	var reportURL string
	for lines.Scan() {
		if m := addrRe.FindStringSubmatch(lines.Text()); m != nil {
			reportURL = m[1]
			break
		}
	}
	if reportURL == "" {
		t.Fatal("the daemon never printed its report address")
	}
	go io.Copy(io.Discard, stdout)
	base := strings.TrimSuffix(reportURL, "/report")
	return base, exited
}
