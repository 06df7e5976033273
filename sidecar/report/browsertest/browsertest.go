// Package browsertest loads pages in headless Chromium for tests: the
// report's own test and the daemon's end-to-end test share it.
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// FindChromium returns the path of a Chromium binary, or "".
func FindChromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// LoadInBrowser loads url in headless Chromium, returns the DOM after the
// page's scripts ran, and saves a screenshot under the test's temp dir.
func LoadInBrowser(t testing.TB, chromium, url string) (dom, screenshot string) {
	t.Helper()
	dir := t.TempDir()
	screenshot = filepath.Join(dir, "report.png")
	flags := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + filepath.Join(dir, "profile"), "--window-size=1280,2200", "--virtual-time-budget=5000"}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, chromium, append(flags, "--dump-dom", url)...).Output()
	if err != nil {
		t.Fatalf("chromium --dump-dom: %v", err)
	}
	if err := exec.CommandContext(ctx, chromium, append(flags, "--screenshot="+screenshot, url)...).Run(); err != nil {
		t.Fatalf("chromium --screenshot: %v", err)
	}
	if st, err := os.Stat(screenshot); err != nil || st.Size() < 10_000 {
		t.Fatalf("screenshot missing or empty: %v", err)
	}
	return string(out), screenshot
}

var pointsRe = regexp.MustCompile(`<canvas[^>]*?id="([^"]+)"[^>]*?data-points="(\d+)"|<canvas[^>]*?data-points="(\d+)"[^>]*?id="([^"]+)"`)

// ChartPoints maps each canvas id to the data points its chart drew, as the
// page's script recorded them after Chart.js ran.
func ChartPoints(dom string) map[string]int {
	out := map[string]int{}
	for _, m := range pointsRe.FindAllStringSubmatch(dom, -1) {
		id, n := m[1], m[2]
		if id == "" {
			id, n = m[4], m[3]
		}
		out[id], _ = strconv.Atoi(n)
	}
	return out
}
