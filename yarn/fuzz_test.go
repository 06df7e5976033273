package yarn

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/internal/fuzzseed"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// Fuzz targets for everything the client decodes from an RM, an MR AM (via
// the RM proxy) or the JobHistory server. The body is served in-process by
// a RoundTripper (no sockets), for whichever path the call asks for, with
// the content type the fuzzer picks. Seeds: the golden files and the real
// Hadoop 3.3.6 recordings in testdata/real-3.3.6.

// fuzzTransport answers every request with one body.
type fuzzTransport struct {
	body        []byte
	contentType string
	status      int
}

func (f fuzzTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	h := http.Header{}
	if f.contentType != "" {
		h.Set("Content-Type", f.contentType)
	}
	return &http.Response{StatusCode: f.status, Header: h, Body: io.NopCloser(bytes.NewReader(f.body)),
		ContentLength: int64(len(f.body)), Request: r}, nil
}

const fuzzApp = "application_1795412916926_0003"

// fuzzCalls are the client's reads, each decoding one or more views.
var fuzzCalls = []func(ctx context.Context, c *Client) error{
	func(ctx context.Context, c *Client) error { _, err := c.Nodes(ctx); return err },
	func(ctx context.Context, c *Client) error { _, err := c.Queues(ctx); return err },
	func(ctx context.Context, c *Client) error { _, err := c.Apps(ctx, "RUNNING"); return err },
	func(ctx context.Context, c *Client) error { _, err := c.NodeLabels(ctx); return err },
	func(ctx context.Context, c *Client) error { _, err := c.ConfVersion(ctx); return err },
	func(ctx context.Context, c *Client) error { _, err := c.SchedulerConf(ctx); return err },
	func(ctx context.Context, c *Client) error { _, err := c.Containers(ctx, fuzzApp); return err },
	func(ctx context.Context, c *Client) error { _, err := c.SetAppPriority(ctx, fuzzApp, 3); return err },
	func(ctx context.Context, c *Client) error {
		_, err := c.RunningJob(ctx, cluster.App{ID: fuzzApp, Type: "MAPREDUCE", State: cluster.AppRunning,
			TrackingURL: "http://rm.test:8088/proxy/" + fuzzApp + "/"})
		return err
	},
	func(ctx context.Context, c *Client) error { _, err := c.FinishedJobs(ctx, time.Time{}); return err },
	func(ctx context.Context, c *Client) error {
		_, err := c.Observe(ctx, ObserveOptions{Now: time.Unix(1795412916, 0), Jobs: true})
		return err
	},
	func(ctx context.Context, c *Client) error { _, err := c.ConfFromScheduler(ctx); return err },
}

// FuzzClientViews: no body, status or content type makes a call panic or
// hang, and a failed call names the endpoint it read.
func FuzzClientViews(f *testing.F) {
	seeds := fuzzseed.Files(f, "testdata/*.json", "testdata/real-3.3.6/*/*.body", "testdata/real-3.3.6/*/*.json",
		"testdata/real-3.3.6-file-store/*.body")
	for _, b := range seeds {
		for i := range fuzzCalls {
			f.Add(uint8(i), b, "application/json", uint16(200))
		}
	}
	f.Add(uint8(4), []byte(`{"versionID":"17"}`), "application/json", uint16(200))
	f.Add(uint8(5), []byte(`{"RemoteException":{"exception":"BadRequestException","message":"x"}}`), "application/json", uint16(400))
	f.Add(uint8(0), []byte(`<html>standby</html>`), "text/html", uint16(200))
	f.Fuzz(func(t *testing.T, which uint8, body []byte, contentType string, status uint16) {
		if status < 100 || status > 599 {
			status = 200
		}
		c, err := New(Config{RMAddresses: []string{"http://rm.test:8088"}, JHSAddress: "http://jhs.test:19888",
			Retries: -1, MaxResponseBytes: 1 << 20,
			HTTPClient: &http.Client{Transport: fuzzTransport{body: body, contentType: contentType, status: int(status)}}})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		err = fuzzCalls[int(which)%len(fuzzCalls)](ctx, c)
		if err != nil && !strings.Contains(err.Error(), "/") {
			t.Fatalf("error names no endpoint: %v", err)
		}
	})
}

// FuzzHadoopConf: yarn-site.xml and mapred-site.xml from HADOOP_CONF_DIR;
// any bytes give addresses or an error naming the file, never a panic.
func FuzzHadoopConf(f *testing.F) {
	f.Add([]byte(`<configuration><property><name>yarn.resourcemanager.ha.enabled</name><value>true</value></property>
<property><name>yarn.resourcemanager.ha.rm-ids</name><value>rm1,rm2</value></property>
<property><name>yarn.resourcemanager.webapp.address.rm1</name><value>rm1:8088</value></property>
<property><name>yarn.resourcemanager.hostname.rm2</name><value>rm2</value></property></configuration>`),
		[]byte(`<configuration><property><name>mapreduce.jobhistory.webapp.address</name><value>jhs:19888</value></property></configuration>`))
	f.Add([]byte(`<?xml version="1.0"?><configuration><property><name>yarn.http.policy</name><value>HTTPS_ONLY</value></property><property><name>yarn.resourcemanager.hostname</name><value>rm</value></property></configuration>`), []byte(nil))
	f.Add([]byte(`<configuration><property>`), []byte(`<!DOCTYPE x [<!ENTITY a "aaaa">]><configuration/>`))
	f.Fuzz(func(t *testing.T, yarnSite, mapredSite []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "yarn-site.xml"), yarnSite, 0o600); err != nil {
			t.Fatal(err)
		}
		if mapredSite != nil {
			if err := os.WriteFile(filepath.Join(dir, "mapred-site.xml"), mapredSite, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		cfg, err := ConfigFromHadoopConf(dir)
		if err != nil {
			if !strings.Contains(err.Error(), dir) {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if len(cfg.RMAddresses) == 0 {
			t.Fatal("no error and no ResourceManager address")
		}
	})
}
