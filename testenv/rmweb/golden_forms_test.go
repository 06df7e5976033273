package rmweb_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
	"github.com/yarn-sidecar/yarn-sidecar/yarn"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// Every write the yarn client can send, held to a request a real RM was
// recorded carrying out (testdata/real-3.3.6). Each form below makes the
// client send its request against the mini cluster; the request on the
// wire (method, path, query parameters, body shape) must match a recorded
// request the RM applied. A form that matches only requests the RM
// answered 200 and ignored (replace-node-to-labels with "nodeLabels")
// fails, and so does a client write no form covers: the client's source is
// scanned for its write calls. Two forms rest on the documentation only
// (ResourceManagerRest.md), no recording: they are listed as docsOnly and
// in the README's list of confirmed writes.

// wireRequest is a write as it went over the wire.
type wireRequest struct {
	method, path, query, contentType, body string
}

// recordedRequest is a request of the recordings: where it is, and whether
// the RM carried it out.
type recordedRequest struct {
	wireRequest
	from    string
	ignored bool
}

// writeForm is one write the client sends.
type writeForm struct {
	name string
	// path is the endpoint, an app id written {id}.
	method, path string
	send         func(ctx context.Context, c *yarn.Client, cpuNode, app string) error
	// recorded: the recorded requests this form must match (see
	// recordedRequests); docsOnly: the document the form rests on when
	// no recording exists.
	recorded []string
	docsOnly string
	docShape []string // docsOnly: the documented body's shape
}

var confProbe = schedconf.Mutation{
	UpdateQueue:   []schedconf.QueueUpdate{{Queue: "root.crypto", Params: map[string]string{"capacity": "50", "accessible-node-labels.gpu.capacity": "50"}}},
	GlobalUpdates: map[string]string{"yarn.scheduler.capacity.rack-locality-full-reset": "false"},
}

var writeForms = []writeForm{
	{name: "add-node-labels", method: "POST", path: "/ws/v1/cluster/add-node-labels",
		send: func(ctx context.Context, c *yarn.Client, _, _ string) error {
			return c.AddNodeLabels(ctx, []yarn.Label{{Name: "probe"}})
		},
		recorded: []string{"labels/add-probe-array", "labels/add-existing-gpu"}},
	{name: "replace-node-to-labels (label a node)", method: "POST", path: "/ws/v1/cluster/replace-node-to-labels",
		send: func(ctx context.Context, c *yarn.Client, node, _ string) error {
			return c.ReplaceNodeLabels(ctx, map[string]string{node: "probe"})
		},
		recorded: []string{"labels/replace-cpunode-probe-labelskey", "labels/replace-cpunode-probe", "labels/replace-cpunode-empty"}},
	// Unlabelling is the same form with an empty list: the RM reads [] as
	// "no label" (recorded: it unlabelled cpunode when it read an empty
	// list from the nodeLabels body).
	{name: "replace-node-to-labels (unlabel a node)", method: "POST", path: "/ws/v1/cluster/replace-node-to-labels",
		send: func(ctx context.Context, c *yarn.Client, node, _ string) error {
			return c.ReplaceNodeLabels(ctx, map[string]string{node: ""})
		},
		recorded: []string{"labels/replace-cpunode-probe-labelskey", "labels/replace-cpunode-probe", "labels/replace-cpunode-empty"}},
	{name: "remove-node-labels", method: "POST", path: "/ws/v1/cluster/remove-node-labels",
		send: func(ctx context.Context, c *yarn.Client, _, _ string) error {
			return c.RemoveNodeLabels(ctx, []string{"probe"})
		},
		recorded: []string{"labels/remove-probe"}},
	{name: "scheduler-conf PUT", method: "PUT", path: "/ws/v1/cluster/scheduler-conf",
		send:     func(ctx context.Context, c *yarn.Client, _, _ string) error { return c.UpdateConf(ctx, confProbe) },
		recorded: []string{"mutations: PUT 200", "mutations/bodies/global.xml"}},
	{name: "scheduler-conf validate", method: "POST", path: "/ws/v1/cluster/scheduler-conf/validate",
		send: func(ctx context.Context, c *yarn.Client, _, _ string) error {
			return c.ValidateMutation(ctx, confProbe)
		},
		recorded: []string{"mutations: POST 200", "mutations/bodies/global.xml"}},
	{name: "app priority", method: "PUT", path: "/ws/v1/cluster/apps/{id}/priority",
		send: func(ctx context.Context, c *yarn.Client, _, app string) error {
			_, err := c.SetAppPriority(ctx, app, 5)
			return err
		},
		docsOnly: "ResourceManagerRest.md, Cluster Application Priority API: PUT {\"priority\":N}", docShape: []string{"priority"}},
	{name: "app queue move", method: "PUT", path: "/ws/v1/cluster/apps/{id}/queue",
		send:     func(ctx context.Context, c *yarn.Client, _, app string) error { return c.MoveApp(ctx, app, "sort") },
		docsOnly: "ResourceManagerRest.md, Cluster Application Queue API: PUT {\"queue\":name}", docShape: []string{"queue"}},
}

// recordedRequests resolves a form's recorded names: "DIR/NAME" is the
// request of INDEX.txt whose answer is NAME; "mutations: METHOD 200" every
// scheduler-conf request of mutations/INDEX.txt with that method the RM
// answered 200; a path ending .xml is that body sent to the form's endpoint
// (recorded in an earlier turn, README: global-updates).
func recordedRequests(t *testing.T, f writeForm) []recordedRequest {
	t.Helper()
	var out []recordedRequest
	for _, name := range f.recorded {
		switch {
		case strings.HasPrefix(name, "mutations: "):
			method := strings.Fields(strings.TrimPrefix(name, "mutations: "))[0]
			line := regexp.MustCompile(`^(PUT|POST) \S+?(/ws/v1/cluster/scheduler-conf(?:/validate)?)(?:\?\S*)? \(body (\w+)\.xml\) -> HTTP/1\.1 (\d+)`)
			for _, l := range strings.Split(string(readRecorded(t, "mutations/INDEX.txt")), "\n") {
				m := line.FindStringSubmatch(l)
				if m == nil || m[1] != method || m[4] != "200" {
					continue
				}
				out = append(out, recordedRequest{from: "mutations/bodies/" + m[3] + ".xml", wireRequest: wireRequest{method: m[1], path: m[2],
					contentType: "application/xml", body: string(readRecorded(t, "mutations/bodies/"+m[3]+".xml"))}})
			}
		case strings.HasSuffix(name, ".xml"):
			out = append(out, recordedRequest{from: name, wireRequest: wireRequest{method: f.method, path: f.path, contentType: "application/xml",
				body: string(readRecorded(t, name))}})
		default:
			dir, answer := filepath.Split(name)
			found := false
			for _, s := range readIndex(t, filepath.Clean(dir)) {
				if filepath.Base(s.answer) != answer {
					continue
				}
				r := recordedRequest{from: name, ignored: labelSteps[answer].ignored, wireRequest: wireRequest{method: s.method, path: s.path, query: s.query, contentType: "application/json"}}
				if s.body != "" {
					r.body = string(readRecorded(t, s.body))
				}
				out = append(out, r)
				found = true
			}
			if !found {
				t.Fatalf("%s: recording %s not in its INDEX.txt", f.name, name)
			}
		}
	}
	return out
}

// bodyShape is a body's structure: JSON key paths (arrays as []) or XML
// element paths, sorted; values do not count.
func bodyShape(contentType, body string) ([]string, error) {
	set := map[string]bool{}
	if strings.TrimSpace(body) == "" {
		return nil, nil
	}
	if strings.Contains(contentType, "xml") {
		d := xml.NewDecoder(strings.NewReader(body))
		var stack []string
		for {
			tok, err := d.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, err
			}
			switch e := tok.(type) {
			case xml.StartElement:
				stack = append(stack, e.Name.Local)
				set[strings.Join(stack, "/")] = true
			case xml.EndElement:
				stack = stack[:len(stack)-1]
			}
		}
	} else {
		var v any
		if err := json.Unmarshal([]byte(body), &v); err != nil {
			return nil, err
		}
		var walk func(prefix string, v any)
		walk = func(prefix string, v any) {
			switch x := v.(type) {
			case map[string]any:
				for k, e := range x {
					p := strings.TrimPrefix(prefix+"."+k, ".")
					set[p] = true
					walk(p, e)
				}
			case []any:
				set[prefix+"[]"] = true
				for _, e := range x {
					walk(prefix+"[]", e)
				}
			}
		}
		walk("", v)
		// An array is an array whether or not it has elements.
		for p := range set {
			if strings.HasSuffix(p, "[]") {
				delete(set, strings.TrimSuffix(p, "[]"))
			}
		}
	}
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out, nil
}

// checkForm says whether a request the client sent is a form the
// recordings (or, for docsOnly forms, the documents) confirm.
func checkForm(got wireRequest, f writeForm, recs []recordedRequest) error {
	shape, err := bodyShape(got.contentType, got.body)
	if err != nil {
		return fmt.Errorf("body not readable: %v", err)
	}
	if got.method != f.method || got.path != f.path {
		return fmt.Errorf("sent %s %s, the form is %s %s", got.method, got.path, f.method, f.path)
	}
	if f.docsOnly != "" {
		if !slices.Equal(shape, f.docShape) {
			return fmt.Errorf("body shape %v, documented %v (%s)", shape, f.docShape, f.docsOnly)
		}
		return nil
	}
	if len(recs) == 0 {
		return fmt.Errorf("no recording of a real RM confirms %s %s", got.method, got.path)
	}
	union := map[string]bool{}
	var ignoredBy []string
	matched := false
	for _, r := range recs {
		if r.method != got.method || r.path != got.path || !slices.Equal(keysOf(r.query), keysOf(got.query)) {
			continue
		}
		rs, err := bodyShape(r.contentType, r.body)
		if err != nil {
			return fmt.Errorf("recording %s: %v", r.from, err)
		}
		if strings.Contains(got.contentType, "xml") {
			if !r.ignored {
				for _, p := range rs {
					union[p] = true
				}
			}
			continue
		}
		if slices.Equal(rs, shape) {
			if r.ignored {
				ignoredBy = append(ignoredBy, r.from)
				continue
			}
			matched = true
		}
	}
	if strings.Contains(got.contentType, "xml") && len(union) > 0 {
		var extra []string
		for _, p := range shape {
			if !union[p] {
				extra = append(extra, p)
			}
		}
		if len(extra) == 0 {
			return nil
		}
		return fmt.Errorf("elements %v appear in no recorded request the RM applied", extra)
	}
	if matched {
		return nil
	}
	if len(ignoredBy) > 0 {
		return fmt.Errorf("body shape %v is what the RM answered 200 and did not carry out (%v)", shape, ignoredBy)
	}
	return fmt.Errorf("body shape %v (query %v) matches no recorded request", shape, keysOf(got.query))
}

// capture records the writes that pass through to h.
type capture struct {
	mu   sync.Mutex
	reqs []wireRequest
	h    http.Handler
	app  string
}

func (c *capture) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		b, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(b))
		c.mu.Lock()
		c.reqs = append(c.reqs, wireRequest{method: r.Method, path: strings.Replace(r.URL.Path, c.app, "{id}", 1),
			query: r.URL.RawQuery, contentType: r.Header.Get("Content-Type"), body: string(b)})
		c.mu.Unlock()
	}
	c.h.ServeHTTP(w, r)
}

func (c *capture) take() []wireRequest {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.reqs
	c.reqs = nil
	return out
}

func TestClientWriteForms(t *testing.T) {
	c := sim.Start(t, "testdata/real336.yaml", 1)
	c.Step(40 * 1e9) // both apps running
	var cpuNode, app string
	for _, n := range c.Nodes() {
		if len(n.Labels) == 0 {
			cpuNode = n.ID
		}
	}
	for _, a := range c.Apps() {
		if a.Queue == "root.crypto" {
			app = a.ID
		}
	}
	cp := &capture{h: c.Handler(), app: app}
	srv := httptest.NewServer(cp)
	t.Cleanup(srv.Close)
	client, err := yarn.New(yarn.Config{RMAddresses: []string{srv.URL}, User: "yarn-sidecar"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	covered := map[string]bool{}
	for _, f := range writeForms {
		covered[f.method+" "+f.path] = true
		if err := f.send(ctx, client, cpuNode, app); err != nil {
			t.Errorf("%s: the mini cluster refused it: %v", f.name, err)
		}
		reqs := cp.take()
		if len(reqs) != 1 {
			t.Errorf("%s: %d writes on the wire, want 1", f.name, len(reqs))
			continue
		}
		if err := checkForm(reqs[0], f, recordedRequests(t, f)); err != nil {
			t.Errorf("%s: %v\n  sent %s %s?%s %s", f.name, err, reqs[0].method, reqs[0].path, reqs[0].query, reqs[0].body)
		}
	}
	// Every write call in the client's source is one of the forms.
	for _, w := range clientWriteCalls(t) {
		if !covered[w] {
			t.Errorf("the client sends %s (yarn/), a write form with no recording in writeForms", w)
		}
	}
}

// clientWriteCalls scans the yarn package's source for its writes
// (rmWrite and postJSON calls) and names each "METHOD path", an app id in
// the path written {id}.
func clientWriteCalls(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("../../yarn/*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("client source: %v", err)
	}
	call := regexp.MustCompile(`c\.(rmWrite|postJSON)\(ctx, (.*)$`)
	lit := regexp.MustCompile(`"([^"]*)"`)
	var out []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			m := call.FindStringSubmatch(l)
			if m == nil || strings.Contains(l, "func ") {
				continue
			}
			method := "POST"
			var parts []string
			for _, s := range lit.FindAllStringSubmatch(m[2], -1) {
				switch {
				case s[1] == "PUT" || s[1] == "POST":
					method = s[1]
				case strings.HasPrefix(s[1], "/"):
					parts = append(parts, s[1])
				}
			}
			if len(parts) == 0 {
				continue // the generic helpers pass a path through
			}
			out = append(out, method+" "+strings.Join(parts, "{id}"))
		}
	}
	if len(out) < len(writeForms)-2 {
		t.Fatalf("found %d client writes in yarn/: %v", len(out), out)
	}
	return out
}

// The check itself: the former replace-node-to-labels body (key
// "nodeLabels") and a write with no recording both fail it.
func TestWriteFormCheckFails(t *testing.T) {
	var replace writeForm
	for _, f := range writeForms {
		if strings.HasPrefix(f.name, "replace-node-to-labels (label") {
			replace = f
		}
	}
	recs := recordedRequests(t, replace)
	for _, tc := range []struct {
		name string
		req  wireRequest
		form writeForm
		want string
	}{
		{name: "the corrected body", form: replace, req: wireRequest{method: "POST", path: replace.path, contentType: "application/json",
			body: `{"nodeToLabels":[{"nodeId":"n:1","labels":["gpu"]}]}`}},
		{name: "the former body, key nodeLabels", form: replace, req: wireRequest{method: "POST", path: replace.path, contentType: "application/json",
			body: `{"nodeToLabels":[{"nodeId":"n:1","nodeLabels":["gpu"]}]}`}, want: "did not carry out"},
		{name: "a write no recording confirms", form: writeForm{name: "app state", method: "PUT", path: "/ws/v1/cluster/apps/{id}/state"},
			req:  wireRequest{method: "PUT", path: "/ws/v1/cluster/apps/{id}/state", contentType: "application/json", body: `{"state":"KILLED"}`},
			want: "no recording"},
		{name: "an element no recorded PUT carries", form: writeForms[4], req: wireRequest{method: "PUT", path: "/ws/v1/cluster/scheduler-conf",
			contentType: "application/xml", body: `<sched-conf><update-queue><queue-name>root.a</queue-name><params><entry><key>k</key><value>v</value></entry></params></update-queue><remove-queue>root.b</remove-queue></sched-conf>`},
			want: "remove-queue"},
	} {
		var r []recordedRequest
		if tc.form.path == replace.path {
			r = recs
		} else if tc.form.recorded != nil {
			r = recordedRequests(t, tc.form)
		}
		err := checkForm(tc.req, tc.form, r)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
}
