package yarn

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// The input dir comes from the AM's conf as a real 3.3.6 AM serves it
// (recorded), and from JobHistory once the AM is gone.
func TestJobInputDir(t *testing.T) {
	body, err := os.ReadFile("testdata/am-conf-3.3.6.json")
	if err != nil {
		t.Fatal(err)
	}
	const job = "job_1795412916926_0003"
	mux := http.NewServeMux()
	mux.HandleFunc("/proxy/application_1795412916926_0003/ws/v1/mapreduce/jobs/"+job+"/conf", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	})
	mux.HandleFunc("/ws/v1/history/mapreduce/jobs/job_1795412916926_0009/conf", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"conf":{"path":"x","property":[{"name":"mapreduce.input.fileinputformat.inputdir","value":"hdfs://nn:8020/a,hdfs://nn:8020/b\\,c"}]}}`))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	c, err := New(Config{RMAddresses: []string{srv.URL}, JHSAddress: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.JobInputDir(context.Background(), cluster.App{ID: "application_1795412916926_0003"}, job)
	if err != nil || got != "hdfs://127.0.0.1:9000/user/root/in-12" {
		t.Errorf("AM conf: %q, %v", got, err)
	}
	got, err = c.JobInputDir(context.Background(), cluster.App{ID: "application_1795412916926_0009"}, "job_1795412916926_0009")
	if err != nil || got != `hdfs://nn:8020/a,hdfs://nn:8020/b\,c` {
		t.Errorf("JobHistory conf after the AM's 404: %q, %v", got, err)
	}
}

// The map size comes from the recorded real 3.3.6 AM conf (mapred-site's
// mapreduce.map.memory.mb=512, mapred-default's vcores 1), and the input
// dir and the size share one conf request per job.
func TestJobMapSizeRecordedOneRequest(t *testing.T) {
	body, err := os.ReadFile("testdata/am-conf-3.3.6.json")
	if err != nil {
		t.Fatal(err)
	}
	const app, job = "application_1795412916926_0003", "job_1795412916926_0003"
	var n int
	mux := http.NewServeMux()
	mux.HandleFunc("/proxy/"+app+"/ws/v1/mapreduce/jobs/"+job+"/conf", func(w http.ResponseWriter, r *http.Request) {
		n++
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	c, err := New(Config{RMAddresses: []string{srv.URL}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	size, err := c.JobMapSize(ctx, cluster.App{ID: app}, job)
	if err != nil || size != (cluster.Resource{MemoryMB: 512, VCores: 1}) {
		t.Errorf("map size %+v, %v; want 512 MB, 1 vcore", size, err)
	}
	dir, err := c.JobInputDir(ctx, cluster.App{ID: app}, job)
	if err != nil || dir != "hdfs://127.0.0.1:9000/user/root/in-12" {
		t.Errorf("input dir %q, %v", dir, err)
	}
	if n != 1 {
		t.Errorf("%d conf requests for one job, want 1", n)
	}
	// A job no longer running is forgotten: its next read asks again.
	c.confs.keep(nil)
	if _, err := c.JobMapSize(ctx, cluster.App{ID: app}, job); err != nil || n != 2 {
		t.Errorf("after the job left: %d requests, %v", n, err)
	}
}

// TestMapContainerSize: JobConf.getMemoryRequired's rules, hand-worked.
func TestMapContainerSize(t *testing.T) {
	for _, tc := range []struct {
		name  string
		props map[string]string
		want  cluster.Resource
	}{
		{"memory.mb and vcores set", map[string]string{MapMemoryKey: "4096", MapVCoresKey: "2"}, cluster.Resource{MemoryMB: 4096, VCores: 2}},
		{"nothing set: 1024 MB, 1 vcore", map[string]string{}, cluster.Resource{MemoryMB: 1024, VCores: 1}},
		// -1 (mapred-default since Hadoop 3): ceil(1600 / 0.8) = 2000.
		{"memory.mb -1: heap over the default ratio", map[string]string{MapMemoryKey: "-1", MapJavaOptsKey: "-Djava.net.preferIPv4Stack=true -Xmx1600m"}, cluster.Resource{MemoryMB: 2000, VCores: 1}},
		// 2g = 2048 MB; ceil(2048 / 0.5) = 4096; the JVM takes the last -Xmx.
		{"last -Xmx in g over a set ratio", map[string]string{MapJavaOptsKey: "-Xmx512m -Xmx2g", HeapRatioKey: "0.5"}, cluster.Resource{MemoryMB: 4096, VCores: 1}},
		{"gpus from the resource-type property", map[string]string{MapMemoryKey: "8192", MapGPUKey: "1"}, cluster.Resource{MemoryMB: 8192, VCores: 1, GPUs: 1}},
		{"garbage falls back to the defaults", map[string]string{MapMemoryKey: "lots", MapVCoresKey: "0"}, cluster.Resource{MemoryMB: 1024, VCores: 1}},
	} {
		if got := mapContainerSize(tc.props); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
