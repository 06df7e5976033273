package main

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/hdfs"
	"github.com/yarn-sidecar/yarn-sidecar/internal/testutil"
)

// startYarnsim runs serve until the test ends and returns what it printed
// once both addresses are out.
func startYarnsim(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out := &testutil.SyncBuffer{}
	done := make(chan error, 1)
	root := newRootCmd()
	root.SetArgs(args)
	root.SetOut(out)
	go func() { done <- root.ExecuteContext(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	printed := testutil.Poll(10*time.Second, 10*time.Millisecond, func() bool {
		select {
		case err := <-done:
			t.Fatalf("serve ended: %v (%q)", err, out.String())
		default:
		}
		return strings.Contains(out.String(), "NameNode at")
	})
	if !printed {
		t.Fatalf("yarnsim printed no addresses in 10 s: %q", out.String())
	}
	return out.String()
}

var (
	rmLine = regexp.MustCompile(`ResourceManager at (\S+) `)
	nnLine = regexp.MustCompile(`NameNode at hdfs://(127\.0\.0\.1:\d+)`)
)

// yarnsim serves the RM and, next to it, a NameNode over the scenario's
// blocks that the sidecar's HDFS client can read.
func TestServeRMAndHDFS(t *testing.T) {
	// Fast enough that the jobs (30 virtual seconds in) write their input.
	out := startYarnsim(t, "--scenario", "lee-gpu", "--speed", "600", "--hadoop-version", "3.3.6")
	rm, nn := rmLine.FindStringSubmatch(out), nnLine.FindStringSubmatch(out)
	if rm == nil || nn == nil {
		t.Fatalf("output lacks the RM URL or the hdfs:// address: %q", out)
	}
	resp, err := http.Get(rm[1] + "/ws/v1/cluster/info")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("RM info: %d", resp.StatusCode)
	}
	if !strings.Contains(out, "Hadoop 3.3.6 dialect") {
		t.Errorf("--hadoop-version not reported: %q", out)
	}
	c, err := hdfs.NewClient(hdfs.Options{Addresses: []string{nn[1]}, User: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// The jobs' input files appear as the scenario submits them.
	var readErr error
	found := testutil.Poll(10*time.Second, 20*time.Millisecond, func() bool {
		ents, err := c.Namespace().ReadDir("/")
		readErr = err
		return err != nil || len(ents) > 0
	})
	if readErr != nil {
		t.Fatalf("HDFS / on the mini NameNode: %v", readErr)
	}
	if !found {
		t.Fatal("no input files on the mini NameNode after 10 s (100 virtual minutes)")
	}
}

// --ha serves two RMs, the second a standby redirecting to the first.
func TestServeHA(t *testing.T) {
	out := startYarnsim(t, "--scenario", "lee-gpu", "--speed", "1", "--ha")
	rm := rmLine.FindStringSubmatch(out)
	if rm == nil {
		t.Fatalf("no RM line: %q", out)
	}
	urls := strings.Split(rm[1], ",")
	if len(urls) != 2 {
		t.Fatalf("--ha printed %d RM URLs, want 2: %q", len(urls), rm[1])
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(urls[1] + "/ws/v1/cluster/apps")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 307 || resp.Header.Get("Location") != urls[0]+"/ws/v1/cluster/apps" {
		t.Errorf("standby: %d Location %q", resp.StatusCode, resp.Header.Get("Location"))
	}
}
