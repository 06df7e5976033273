package report

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar/report/browsertest"
)

// TestBrowserReportStatic loads a rendered report in headless Chromium and
// checks every chart drew its data. The end-to-end variant, serving /report
// from a daemon on the mini cluster, is in cmd/yarn-sidecar.
func TestBrowserReportStatic(t *testing.T) {
	chromium := browsertest.FindChromium()
	if chromium == "" {
		t.Skip("chromium not installed (.ci/run installs Debian's chromium); skipping the browser test")
	}
	var buf bytes.Buffer
	if err := Render(&buf, sampleStatus(), Options{Generated: time.Unix(0, 0)}); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(buf.Bytes())
	}))
	defer srv.Close()
	dom, shot := browsertest.LoadInBrowser(t, chromium, srv.URL)
	pts := browsertest.ChartPoints(dom)
	if pts["ps-chart"] == 0 {
		t.Fatalf("PS chart drew no points; charts: %v", pts)
	}
	if pts["cdf0"] == 0 {
		t.Fatalf("CDF chart drew no points; charts: %v", pts)
	}
	t.Logf("screenshot: %s; chart points: %v", shot, pts)
}
