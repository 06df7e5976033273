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

var (
	canvasRe = regexp.MustCompile(`<canvas\b[^>]*>`)
	attrRe   = regexp.MustCompile(`([a-z-]+)="([^"]*)"`)
	errorsRe = regexp.MustCompile(`<html\b[^>]*\bdata-errors="([^"]*)"`)
)

// Chart is what one chart drew, as the page's script recorded it on its
// canvas after Chart.js ran: the data points and the range of the values.
type Chart struct {
	Points   int
	Min, Max float64
}

// Charts maps each canvas id to what its chart drew.
func Charts(dom string) map[string]Chart {
	out := map[string]Chart{}
	for _, tag := range canvasRe.FindAllString(dom, -1) {
		attrs := map[string]string{}
		for _, m := range attrRe.FindAllStringSubmatch(tag, -1) {
			attrs[m[1]] = m[2]
		}
		id := attrs["id"]
		if id == "" {
			continue
		}
		var c Chart
		c.Points, _ = strconv.Atoi(attrs["data-points"])
		c.Min, _ = strconv.ParseFloat(attrs["data-min"], 64)
		c.Max, _ = strconv.ParseFloat(attrs["data-max"], 64)
		out[id] = c
	}
	return out
}

// ChartPoints maps each canvas id to the data points its chart drew.
func ChartPoints(dom string) map[string]int {
	out := map[string]int{}
	for id, c := range Charts(dom) {
		out[id] = c.Points
	}
	return out
}

// ScriptErrors returns the errors the page's scripts raised ("" = none), as
// its window error handler recorded them on <html data-errors>.
func ScriptErrors(dom string) string {
	if m := errorsRe.FindStringSubmatch(dom); m != nil {
		return m[1]
	}
	return ""
}
