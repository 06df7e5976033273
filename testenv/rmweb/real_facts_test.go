package rmweb_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/rmweb"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
)

// The facts of testdata/real-3.3.6/README.md, one by one, on the mini
// cluster laid out as the recorded one.

func getJSON(t *testing.T, url string) map[string]any {
	t.Helper()
	resp, body := get(t, url)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %.300s", url, resp.StatusCode, body)
	}
	var v map[string]any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("GET %s: %v: %.300s", url, err, body)
	}
	return v
}

func send(t *testing.T, method, url, contentType, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := noFollow.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func num(t *testing.T, v any) float64 {
	t.Helper()
	f, ok := v.(float64)
	if !ok {
		t.Fatalf("%v is %T, want a number", v, v)
	}
	return f
}

// Lists with one element are objects where the recordings show it; a
// finished app's containers are {}; the containers list has string numbers
// and nodeHttpAddress with its scheme.
func TestRealJerseyLists(t *testing.T) {
	// The crypto job's maps (3072 MB) do not fit next to its AM (1536 MB)
	// on the 4096 MB gpu node it is routed to: it holds one container.
	sc, err := sim.LoadScenario("testdata/real336.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sc.Classes[0].MapMemoryMB = 3072
	cl, err := sim.NewCluster(sc, 1)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(cl.Handler())
	t.Cleanup(srv.Close)
	c := &sim.TestCluster{Cluster: cl, URL: srv.URL}
	var one rmweb.App
	for deadline := c.Now().Add(time.Minute); c.Now().Before(deadline) && one.ID == ""; c.Step(time.Second) {
		for _, a := range c.Apps() {
			if a.State == "RUNNING" && a.RunningContainers == 1 {
				one = a
			}
		}
	}
	if one.ID == "" {
		t.Fatal("no app ever held exactly one container in the first minute")
	}
	v := getJSON(t, c.URL+"/ws/v1/cluster/apps/"+one.ID+"/appattempts/"+one.AttemptID+"/containers")
	ct, ok := v["container"].(map[string]any)
	if !ok || len(v) != 1 {
		t.Fatalf(`one container must read {"container":{...}}, got %s`, sShort(v))
	}
	for _, k := range []string{"allocatedMB", "allocatedVCores", "priority", "startedTime", "finishedTime", "elapsedTime", "containerExitStatus"} {
		if s, ok := ct[k].(string); !ok || !regexp.MustCompile(`^-?[0-9]+$`).MatchString(s) {
			t.Errorf("container %s = %#v, want a number as a string", k, ct[k])
		}
	}
	if ct["allocatedMB"] != "1536" || ct["priority"] != "0" {
		t.Errorf("the AM container: allocatedMB %v priority %v, want \"1536\" \"0\"", ct["allocatedMB"], ct["priority"])
	}
	if a, _ := ct["nodeHttpAddress"].(string); a != "http://"+one.AMHostHTTPAddress {
		t.Errorf("nodeHttpAddress %q, want http://%s", a, one.AMHostHTTPAddress)
	}

	// Labels: one label, one labelled node — objects, as recorded.
	var gpuNode string
	for _, n := range c.Nodes() {
		if len(n.Labels) > 0 {
			gpuNode = n.ID
		}
	}
	for path, recorded := range map[string]string{
		"/ws/v1/cluster/get-node-labels":    "running/rm_get-node-labels.body",
		"/ws/v1/cluster/get-node-to-labels": "running/rm_get-node-to-labels.body",
		"/ws/v1/cluster/label-mappings":     "running/rm_label-mappings.body",
	} {
		var want any
		json.Unmarshal([]byte(strings.ReplaceAll(string(readRecorded(t, recorded)), "gpunode:45451", gpuNode)), &want)
		got := getJSON(t, c.URL+path)
		if g, w := sShort(got), sShort(want); g != w {
			t.Errorf("GET %s:\n got %s\nwant %s (recorded)", path, g, w)
		}
	}
	resp, body := get(t, c.URL+"/ws/v1/cluster/get-labels-to-nodes")
	if resp.StatusCode != 404 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") || !strings.Contains(string(body), "controller for v1 not found") {
		t.Errorf("get-labels-to-nodes: %d %s, want the web app's 404 HTML", resp.StatusCode, resp.Header.Get("Content-Type"))
	}

	// A run to its end: containers {}, the AM proxy 302 to JobHistory.
	c = sim.Start(t, "testdata/real336.yaml", 1)
	if !c.RunUntilDone(time.Hour) {
		t.Fatal("real336 did not finish")
	}
	one = c.Apps()[0]
	v = getJSON(t, c.URL+"/ws/v1/cluster/apps/"+one.ID+"/appattempts/"+one.AttemptID+"/containers")
	if len(v) != 0 {
		t.Errorf("finished app's containers %s, want {}", sShort(v))
	}
	resp, body = get(t, c.URL+"/proxy/"+one.ID+"/ws/v1/mapreduce/jobs")
	host := strings.TrimPrefix(c.URL, "http://")
	wantLoc := "http://" + host + "/jobhistory/job/job" + strings.TrimPrefix(one.ID, "application") + "/ws/v1/mapreduce/jobs"
	if resp.StatusCode != 302 || resp.Header.Get("Location") != wantLoc || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Errorf("finished AM: %d Location %q Content-Type %q, want 302 %s text/html (%s)", resp.StatusCode, resp.Header.Get("Location"),
			resp.Header.Get("Content-Type"), wantLoc, body)
	}
}

// Apps carry resourceUsagesByPartition from the sim's real per-partition
// usage; /cluster/metrics counts the default partition in totalMB and the
// whole cluster in the *AcrossPartition figures.
func TestRealPartitionFigures(t *testing.T) {
	c := sim.Start(t, "testdata/real336.yaml", 1)
	c.Step(40 * time.Second)
	totalAlloc := 0.0
	for _, a := range c.Apps() {
		app := getJSON(t, c.URL+"/ws/v1/cluster/apps/"+a.ID)["app"].(map[string]any)
		parts := sOneOrMany(t, app, "resourceInfo.resourceUsagesByPartition")
		byName := map[string]map[string]any{}
		for _, p := range parts {
			p := p.(map[string]any)
			byName[p["partitionName"].(string)] = p
		}
		mem := func(p map[string]any, k string) float64 { return num(t, p[k].(map[string]any)["memory"]) }
		alloc := num(t, app["allocatedMB"])
		totalAlloc += alloc
		want := "" // sort runs in the default partition, crypto (routed) in gpu
		if a.Queue == "root.crypto" {
			want = "gpu"
			if app["amNodeLabelExpression"] != "gpu" {
				t.Errorf("crypto amNodeLabelExpression %v, want gpu (its queue's default, as recorded)", app["amNodeLabelExpression"])
			}
			if mem(byName[""], "used") != 0 {
				t.Errorf("crypto uses the default partition: %s", sShort(byName[""]))
			}
		}
		p, ok := byName[want]
		if !ok {
			t.Fatalf("%s: no partition %q in %s", a.Queue, want, sShort(parts))
		}
		if mem(p, "used") != alloc || mem(p, "amUsed") != 1536 || mem(p, "pending") != float64(a.ByPartition[want].Pending.MemoryMB) {
			t.Errorf("%s partition %q: used %v amUsed %v pending %v; app allocatedMB %v, sim pending %d", a.Queue, want,
				mem(p, "used"), mem(p, "amUsed"), mem(p, "pending"), alloc, a.ByPartition[want].Pending.MemoryMB)
		}
		if _, ok := byName[""]; !ok {
			t.Errorf("%s: the default partition must always be listed", a.Queue)
		}
	}
	m := getJSON(t, c.URL+"/ws/v1/cluster/metrics")["clusterMetrics"].(map[string]any)
	if num(t, m["totalMB"]) != 4096 {
		t.Errorf("totalMB %v, want 4096 (the default partition only, as recorded)", m["totalMB"])
	}
	if v := num(t, m["totalClusterResourcesAcrossPartition"].(map[string]any)["memory"]); v != 8192 {
		t.Errorf("totalClusterResourcesAcrossPartition.memory %v, want 8192", v)
	}
	if v := num(t, m["totalUsedResourcesAcrossPartition"].(map[string]any)["memory"]); v != totalAlloc {
		t.Errorf("totalUsedResourcesAcrossPartition.memory %v, want the apps' %v", v, totalAlloc)
	}
	if m["crossPartitionMetricsAvailable"] != true {
		t.Error("crossPartitionMetricsAvailable not true")
	}
	if num(t, m["totalMB"]) != num(t, m["allocatedMB"])+num(t, m["availableMB"]) {
		t.Errorf("totalMB %v != allocatedMB + availableMB", m["totalMB"])
	}
}

// Every scheduler-conf request the recordings made, replayed in their
// order on a fresh mini cluster: same status, same text, nothing applied
// when refused.
func TestRealMutationReplay(t *testing.T) {
	c := sim.Start(t, "testdata/real336.yaml", 1)
	index := string(readRecorded(t, "mutations/INDEX.txt")) + string(readRecorded(t, "modes/INDEX.txt"))
	line := regexp.MustCompile(`^(PUT|POST) \S+/ws/v1/cluster/scheduler-conf(/validate)?(\?user\.name=root)? \(body (\w+)\.xml\) -> HTTP/1\.1 (\d+)`)
	recordedBody := map[string]string{ // request → the file holding its recorded answer
		"POST": "mutations/validate_%s.body", "PUT": "mutations/put_%s.body"}
	seen := map[string]int{}
	applied := 0
	_, v0 := c.SchedulerConf()
	for _, l := range strings.Split(index, "\n") {
		m := line.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		method, body, status := m[1], m[4], m[5]
		path := "/ws/v1/cluster/scheduler-conf"
		if method == "POST" {
			path += "/validate"
		}
		xml := string(readRecorded(t, "mutations/bodies/"+body+".xml"))
		before, vBefore := c.SchedulerConf()
		resp, got := send(t, method, c.URL+path+"?user.name=root", "application/xml", xml)
		name := method + " " + body
		if resp.StatusCode != atoi(status) {
			t.Errorf("%s: %d, want %s as recorded: %.300s", name, resp.StatusCode, status, got)
			continue
		}
		if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
			t.Errorf("%s: Content-Type %q, want application/json as recorded", name, ct)
		}
		// The recorded answer: mutations/ first, then modes/.
		key := strings.ToLower(map[string]string{"POST": "validate", "PUT": "put"}[method]) + "_" + body
		seen[key]++
		file := strings.Replace(recordedBody[method], "%s", body, 1)
		if seen[key] == 2 && body == "revert" {
			file = "mutations/put_revert2.body"
		}
		if _, err := os.Stat(filepath.Join(realDir, file)); err != nil {
			file = "modes/" + key + ".body"
		}
		if _, err := os.Stat(filepath.Join(realDir, file)); err != nil {
			if resp.StatusCode == 200 && method == "PUT" { // no body kept: the success text
				file = "mutations/put_valid.body"
			} else {
				t.Errorf("%s: no recorded answer", name)
				continue
			}
		}
		want := strings.TrimRight(string(readRecorded(t, file)), "\n")
		switch {
		case strings.HasPrefix(want, `{"property"`):
			// The whole resulting configuration; the real one also lists
			// its defaults, so compare the keys the mutation names.
			var gotConf, wantConf struct {
				Property []struct{ Name, Value string } `json:"property"`
			}
			if err := json.Unmarshal([]byte(got), &gotConf); err != nil {
				t.Errorf("%s: not a property list: %.200s", name, got)
				continue
			}
			json.Unmarshal([]byte(want), &wantConf)
			gotMap, wantMap := map[string]string{}, map[string]string{}
			for _, p := range gotConf.Property {
				gotMap[p.Name] = p.Value
			}
			for _, p := range wantConf.Property {
				wantMap[p.Name] = p.Value
			}
			if len(gotMap) < len(before) {
				t.Errorf("%s: %d properties, want the whole configuration (%d+)", name, len(gotMap), len(before))
			}
			for _, k := range regexp.MustCompile(`<queue-name>([^<]+)</queue-name><params>((?:<entry><key>[^<]+</key><value>[^<]*</value></entry>)+)`).FindAllStringSubmatch(xml, -1) {
				for _, e := range regexp.MustCompile(`<key>([^<]+)</key><value>([^<]*)</value>`).FindAllStringSubmatch(k[2], -1) {
					full := "yarn.scheduler.capacity." + k[1] + "." + e[1]
					if gotMap[full] != wantMap[full] {
						t.Errorf("%s: %s = %q, recorded %q", name, full, gotMap[full], wantMap[full])
					}
				}
			}
		case strings.HasPrefix(want, `{"RemoteException"`):
			var g, w map[string]map[string]string
			json.Unmarshal([]byte(got), &g)
			json.Unmarshal([]byte(want), &w)
			if g["RemoteException"]["exception"] != w["RemoteException"]["exception"] || g["RemoteException"]["javaClassName"] != w["RemoteException"]["javaClassName"] ||
				!strings.HasPrefix(g["RemoteException"]["message"], "javax.xml.bind.UnmarshalException") {
				t.Errorf("%s: %s, recorded %s", name, got, want)
			}
		default:
			if got != want {
				t.Errorf("%s:\n got %q\nwant %q (recorded)", name, got, want)
			}
		}
		after, vAfter := c.SchedulerConf()
		if method == "PUT" && resp.StatusCode == 200 {
			applied++
			if vAfter != vBefore+1 {
				t.Errorf("%s: version %d → %d, want +1", name, vBefore, vAfter)
			}
		} else if vAfter != vBefore || len(after) != len(before) {
			t.Errorf("%s: refused or validate-only, yet the configuration changed (version %d → %d)", name, vBefore, vAfter)
		}
	}
	if _, v := c.SchedulerConf(); applied < 6 || v != v0+int64(applied) {
		t.Errorf("%d PUTs applied, version %d → %d", applied, v0, v)
	}
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

// update-queue of an unknown queue writes the property; an empty value
// removes a queue property but leaves a global key present as "".
func TestRealConfAcceptance(t *testing.T) {
	c := sim.Start(t, "testdata/real336.yaml", 1)
	put := func(xml string) {
		t.Helper()
		resp, body := send(t, "PUT", c.URL+"/ws/v1/cluster/scheduler-conf?user.name=root", "application/xml", xml)
		if resp.StatusCode != 200 || body != "Configuration change successfully applied." {
			t.Fatalf("PUT %s: %d %q", xml, resp.StatusCode, body)
		}
	}
	put(string(readRecorded(t, "mutations/bodies/unknownqueue.xml")))
	put(string(readRecorded(t, "mutations/bodies/unknownlabel.xml")))
	put(string(readRecorded(t, "mutations/bodies/global.xml")))
	conf, _ := c.SchedulerConf()
	if conf["yarn.scheduler.capacity.root.nosuch.capacity"] != "10" {
		t.Errorf("root.nosuch.capacity = %q, want 10 written as the real RM does", conf["yarn.scheduler.capacity.root.nosuch.capacity"])
	}
	if conf["yarn.scheduler.capacity.root.crypto.accessible-node-labels"] != "gpu,fpga" {
		t.Errorf("crypto accessible-node-labels = %q, want gpu,fpga", conf["yarn.scheduler.capacity.root.crypto.accessible-node-labels"])
	}
	put(string(readRecorded(t, "mutations/bodies/clean.xml")))
	conf, _ = c.SchedulerConf()
	if _, ok := conf["yarn.scheduler.capacity.root.crypto.default-node-label-expression"]; ok {
		t.Error("an empty update-queue value must remove the queue property")
	}
	if v, ok := conf["yarn.scheduler.capacity.rack-locality-full-reset"]; !ok || v != "" {
		t.Errorf("an empty global-updates value must leave the key present as \"\", got %q present=%v", v, ok)
	}
	if v, ok := conf["yarn.scheduler.capacity.root.nosuch.capacity"]; !ok || v != "" {
		t.Errorf("root.nosuch.capacity after clean: %q present=%v, want \"\"", v, ok)
	}
}

// Capacities read back as Java floats: 60 → 60.000004 (recorded).
func TestRealFloatCapacities(t *testing.T) {
	c := sim.Start(t, "testdata/real336.yaml", 1)
	resp, body := send(t, "PUT", c.URL+"/ws/v1/cluster/scheduler-conf?user.name=root", "application/xml", string(readRecorded(t, "mutations/bodies/valid.xml")))
	if resp.StatusCode != 200 {
		t.Fatalf("PUT valid.xml: %d %s", resp.StatusCode, body)
	}
	_, raw := get(t, c.URL+"/ws/v1/cluster/scheduler")
	if !strings.Contains(string(raw), `"capacity":60.000004`) || !strings.Contains(string(raw), `"capacity":40.0`) {
		t.Errorf("scheduler after capacity 60/40: want 60.000004 and 40.0 as a 3.3.6 RM prints them: %.400s", raw)
	}
}

// hadoop_version selects the release's wording and features: weight mode
// is refused by 3.3.6 and taken by 3.4.1; app queues are the leaf name on
// 3.3.6 and the full path on 3.4.1; /cluster/info says which.
func TestHadoopVersionDialects(t *testing.T) {
	for _, tc := range []struct {
		version, queue, info string
		weights              int
	}{
		{"3.3.6", "crypto", "3.3.6", 400},
		{"3.4.1", "root.crypto", "3.4.1", 200},
	} {
		t.Run(tc.version, func(t *testing.T) {
			sc, err := sim.LoadScenario("testdata/real336.yaml")
			if err != nil {
				t.Fatal(err)
			}
			sc.HadoopVersion = tc.version
			c, err := sim.NewCluster(sc, 1)
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(c.Handler())
			t.Cleanup(srv.Close)
			c.Step(40 * time.Second)
			info := getJSON(t, srv.URL+"/ws/v1/cluster/info")["clusterInfo"].(map[string]any)
			if info["hadoopVersion"] != tc.info || info["resourceManagerVersion"] != tc.info {
				t.Errorf("clusterInfo versions %v/%v, want %s", info["hadoopVersion"], info["resourceManagerVersion"], tc.info)
			}
			for _, a := range c.Apps() {
				if a.Queue != "root.crypto" {
					continue
				}
				if q := getJSON(t, srv.URL+"/ws/v1/cluster/apps/"+a.ID)["app"].(map[string]any)["queue"]; q != tc.queue {
					t.Errorf("app queue %v, want %s", q, tc.queue)
				}
				if q := getJSON(t, srv.URL+"/ws/v1/cluster/apps/"+a.ID+"/queue")["queue"]; q != tc.queue {
					t.Errorf("apps/{id}/queue %v, want %s", q, tc.queue)
				}
			}
			resp, body := send(t, "PUT", srv.URL+"/ws/v1/cluster/scheduler-conf?user.name=root", "application/xml", string(readRecorded(t, "mutations/bodies/weights.xml")))
			if resp.StatusCode != tc.weights {
				t.Errorf("weights.xml: %d %s, want %d", resp.StatusCode, body, tc.weights)
			}
			if tc.weights == 400 && body != strings.TrimSpace(string(readRecorded(t, "modes/put_weights.body"))) {
				t.Errorf("weights.xml on 3.3.6: %q, want the recorded %q", body, readRecorded(t, "modes/put_weights.body"))
			}
		})
	}
	if _, err := sim.ParseScenario([]byte("hadoop_version: 2.10\nnode_types: [{name: a, count: 1, memory_mb: 1, vcores: 1}]\nconf: {yarn.scheduler.capacity.root.queues: a}\n"), "bad"); err == nil ||
		!strings.Contains(err.Error(), "hadoop_version") {
		t.Errorf("hadoop_version 2.10: err %v, want one naming hadoop_version", err)
	}
}

// conf_store: leveldb serves validate broken as a leveldb store breaks it
// (every body, valid or not), while PUT works.
func TestLevelDBValidateBroken(t *testing.T) {
	sc, err := sim.LoadScenario("testdata/real336.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sc.ConfStore = "leveldb"
	c, err := sim.NewCluster(sc, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !c.RMOptions().ValidateBrokenAsLevelDB {
		t.Fatal("conf_store: leveldb does not set rmweb.Options.ValidateBrokenAsLevelDB")
	}
	srv := httptest.NewServer(c.Handler())
	t.Cleanup(srv.Close)
	for _, body := range []string{"valid", "sum110"} {
		resp, got := send(t, "POST", srv.URL+"/ws/v1/cluster/scheduler-conf/validate?user.name=root", "application/xml", string(readRecorded(t, "mutations/bodies/"+body+".xml")))
		if resp.StatusCode != 400 || !strings.HasPrefix(got, "CapacityScheduler configuration validation failed:org.apache.hadoop.service.ServiceStateException: java.io.IOException: java.io.IOException: org.fusesource.leveldbjni.internal.NativeDB$DBException: IO error: lock ") ||
			!strings.HasSuffix(got, "/conf-version-store/LOCK: already held by process") {
			t.Errorf("validate %s on leveldb: %d %q", body, resp.StatusCode, got)
		}
	}
	_, v := c.SchedulerConf()
	resp, got := send(t, "PUT", srv.URL+"/ws/v1/cluster/scheduler-conf?user.name=root", "application/xml", string(readRecorded(t, "mutations/bodies/valid.xml")))
	if _, v2 := c.SchedulerConf(); resp.StatusCode != 200 || v2 != v+1 {
		t.Errorf("PUT on leveldb: %d %q, version %d → %d; the PUT must work", resp.StatusCode, got, v, v2)
	}
	if _, err := sim.ParseScenario([]byte("conf_store: mysql\nnode_types: [{name: a, count: 1, memory_mb: 1, vcores: 1}]\nconf: {yarn.scheduler.capacity.root.queues: a}\n"), "bad"); err == nil ||
		!strings.Contains(err.Error(), "conf_store") {
		t.Errorf("conf_store mysql: err %v, want one naming conf_store", err)
	}
}
