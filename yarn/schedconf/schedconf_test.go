package schedconf

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

func base() Conf {
	return Conf{
		"yarn.scheduler.capacity.root.queues":                                        "a,b",
		"yarn.scheduler.capacity.root.accessible-node-labels.gpu.capacity":           "100",
		"yarn.scheduler.capacity.root.a.capacity":                                    "50",
		"yarn.scheduler.capacity.root.a.maximum-capacity":                            "100",
		"yarn.scheduler.capacity.root.a.accessible-node-labels":                      "gpu",
		"yarn.scheduler.capacity.root.a.accessible-node-labels.gpu.capacity":         "70",
		"yarn.scheduler.capacity.root.b.capacity":                                    "50",
		"yarn.scheduler.capacity.root.b.accessible-node-labels":                      "gpu",
		"yarn.scheduler.capacity.root.b.accessible-node-labels.gpu.capacity":         "30",
		"yarn.scheduler.capacity.root.b.accessible-node-labels.gpu.maximum-capacity": "60",
	}
}

func with(c Conf, kv ...string) Conf {
	out := c.Clone()
	for i := 0; i < len(kv); i += 2 {
		if kv[i+1] == "" {
			delete(out, kv[i])
		} else {
			out[kv[i]] = kv[i+1]
		}
	}
	return out
}

func TestParseTreeAbsoluteCapacities(t *testing.T) {
	c := with(base(), "yarn.scheduler.capacity.root.b.queues", "b1,b2",
		"yarn.scheduler.capacity.root.b.b1.capacity", "1w", "yarn.scheduler.capacity.root.b.b2.capacity", "3w",
		"yarn.scheduler.capacity.root.b.b1.accessible-node-labels.gpu.capacity", "50",
		"yarn.scheduler.capacity.root.b.b2.accessible-node-labels.gpu.capacity", "50")
	tr, err := ParseTree(c)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		queue, label string
		abs, max     float64
	}{
		{"root.a", "", 0.5, 1}, {"root.a", "gpu", 0.7, 1}, {"root.b", "gpu", 0.3, 0.6},
		{"root.b.b1", "", 0.125, 1}, {"root.b.b2", "", 0.375, 1}, {"root.b.b2", "gpu", 0.15, 0.6},
	}
	for _, tc := range cases {
		t.Run(tc.queue+"/"+tc.label, func(t *testing.T) {
			q := tr.ByPath[tc.queue]
			if q == nil {
				t.Fatalf("no queue %s", tc.queue)
			}
			if d := q.AbsCapacity[tc.label] - tc.abs; d > 1e-9 || d < -1e-9 {
				t.Errorf("abs capacity %v, want %v", q.AbsCapacity[tc.label], tc.abs)
			}
			if d := q.AbsMaxCapacity[tc.label] - tc.max; d > 1e-9 || d < -1e-9 {
				t.Errorf("abs max %v, want %v", q.AbsMaxCapacity[tc.label], tc.max)
			}
		})
	}
	if got := len(tr.Leaves()); got != 3 {
		t.Errorf("%d leaves, want 3", got)
	}
	if !tr.ByPath["root.b.b1"].CanUse("gpu") || tr.ByPath["root"].CanUse("ssd") == false {
		t.Error("accessible labels not inherited (b1 from b) or root's * not honoured")
	}
}

// An absolute-resource tree's shares need the partitions' resources:
// ParseTree leaves them 0, ResolveAbsolute fills them from its answer and
// derives what lies below again.
func TestResolveAbsolute(t *testing.T) {
	c := Conf{
		"yarn.scheduler.capacity.root.queues":             "a,b",
		"yarn.scheduler.capacity.root.a.capacity":         "[memory=24576,vcores=12]",
		"yarn.scheduler.capacity.root.b.capacity":         "[memory=73728,vcores=36]",
		"yarn.scheduler.capacity.root.b.queues":           "b1,b2",
		"yarn.scheduler.capacity.root.b.b1.capacity":      "[memory=24576,vcores=12]",
		"yarn.scheduler.capacity.root.b.b2.capacity":      "[memory=49152,vcores=24]",
		"yarn.scheduler.capacity.root.b.maximum-capacity": "[memory=98304,vcores=48]",
	}
	tr, err := ParseTree(c)
	if err != nil {
		t.Fatal(err)
	}
	if got := tr.ByPath["root.b.b2"].AbsCapacity[""]; got != 0 {
		t.Fatalf("before resolving: b2 %v, want 0 (unknown)", got)
	}
	const total = 196608.0
	tr.ResolveAbsolute(func(q *Queue, l string) (float64, bool) {
		if q.Path == "root.b.b1" {
			return 0, false // the RM did not say
		}
		return float64(q.Capacity[l].Absolute["memory"]) / total, true
	})
	for _, tc := range []struct {
		queue string
		abs   float64
	}{{"root.a", 0.125}, {"root.b", 0.375}, {"root.b.b1", 0}, {"root.b.b2", 0.25}, {"root", 1}} {
		t.Run(tc.queue, func(t *testing.T) {
			if got := tr.ByPath[tc.queue].AbsCapacity[""]; got < tc.abs-1e-9 || got > tc.abs+1e-9 {
				t.Fatalf("abs capacity %v, want %v", got, tc.abs)
			}
		})
	}
}

func TestValidateMessages(t *testing.T) {
	cases := []struct {
		name string
		conf Conf
		want string // exact Hadoop message, or "" for valid
	}{
		{"valid", base(), ""},
		{"default sum 110", with(base(), "yarn.scheduler.capacity.root.a.capacity", "60"),
			"Illegal capacity sum of 1.1 for children of queue root for label=. It should be either 0 or 1.0"},
		{"label sum 90", with(base(), "yarn.scheduler.capacity.root.a.accessible-node-labels.gpu.capacity", "60"),
			"Illegal capacity sum of 0.9 for children of queue root for label=gpu. It should be either 0 or 1.0"},
		{"capacity over 100", with(base(), "yarn.scheduler.capacity.root.a.capacity", "120", "yarn.scheduler.capacity.root.b.capacity", "-20"),
			"Illegal capacity of 1.2 for queue root.a"},
		{"label capacity over 100", with(base(), "yarn.scheduler.capacity.root.a.accessible-node-labels.gpu.capacity", "130", "yarn.scheduler.capacity.root.b.accessible-node-labels.gpu.capacity", "-30"),
			"Illegal capacity of 1.3 for node-label=gpu in queue=root.a, valid capacity should in range of [0, 100]."},
		{"capacity above maximum", with(base(), "yarn.scheduler.capacity.root.b.accessible-node-labels.gpu.capacity", "70", "yarn.scheduler.capacity.root.a.accessible-node-labels.gpu.capacity", "30"),
			"Illegal queue capacity setting (abs-capacity=0.7) > (abs-maximum-capacity=0.6) for queue=[root.b],label=[gpu]"},
		{"absolute mixed with percentage", with(base(), "yarn.scheduler.capacity.root.a.capacity", "[memory=1024,vcores=1]"),
			"Parent=root: When absolute minResource is used, we must make sure both parent and child all use absolute minResource"},
		{"weight mixed with percentage", with(base(), "yarn.scheduler.capacity.root.a.capacity", "2w"),
			"Parent queue 'root' have children queue used mixed of weight mode, percentage and absolute mode, it is not allowed, please double check, label="},
		{"zero sum under a non-zero parent", with(base(), "yarn.scheduler.capacity.root.a.capacity", "0", "yarn.scheduler.capacity.root.b.capacity", "0"),
			"Illegal capacity sum of 0.0 for children of queue root for label=. It is set to 0, but parent percent != 0, and doesn't allow children capacity to set to 0"},
		{"weights need no sum", with(base(), "yarn.scheduler.capacity.root.a.capacity", "1w", "yarn.scheduler.capacity.root.b.capacity", "3w"), ""},
		{"bad value", with(base(), "yarn.scheduler.capacity.root.a.capacity", "lots"),
			`queue root.a capacity: capacity "lots" is not a percentage, weight (2w) or absolute resource ([memory=...,vcores=...])`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := Validate(tc.conf)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("unexpected: %v", err)
				}
				return
			}
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("want *ValidationError, got %v", err)
			}
			if ve.Message != tc.want {
				t.Fatalf("message\n got: %s\nwant: %s", ve.Message, tc.want)
			}
		})
	}
}

func TestValidateUnknownLabel(t *testing.T) {
	if err := ValidateWithLabels(base(), []string{"gpu"}); err != nil {
		t.Fatal(err)
	}
	err := ValidateWithLabels(base(), []string{"ssd"})
	if err == nil || !strings.Contains(err.Error(), "label=gpu") {
		t.Fatalf("want unknown-label error naming gpu, got %v", err)
	}
}

func TestApply(t *testing.T) {
	cases := []struct {
		name    string
		m       Mutation
		check   func(t *testing.T, c Conf)
		wantErr string
	}{
		{"update sets and unsets", Mutation{UpdateQueue: []QueueUpdate{{Queue: "root.b", Params: map[string]string{"accessible-node-labels.gpu.maximum-capacity": "", "user-limit-factor": "2"}}}},
			func(t *testing.T, c Conf) {
				if _, ok := c["yarn.scheduler.capacity.root.b.accessible-node-labels.gpu.maximum-capacity"]; ok {
					t.Error("empty value did not unset")
				}
				if c["yarn.scheduler.capacity.root.b.user-limit-factor"] != "2" {
					t.Error("param not set")
				}
			}, ""},
		{"add queue under new parent", Mutation{AddQueue: []QueueUpdate{{Queue: "root.c", Params: map[string]string{"capacity": "0"}}, {Queue: "root.c.c1", Params: map[string]string{"capacity": "100"}}}},
			func(t *testing.T, c Conf) {
				if c["yarn.scheduler.capacity.root.queues"] != "a,b,c" || c["yarn.scheduler.capacity.root.c.queues"] != "c1" {
					t.Errorf("queues lists: %q %q", c["yarn.scheduler.capacity.root.queues"], c["yarn.scheduler.capacity.root.c.queues"])
				}
			}, ""},
		{"remove running queue refused", Mutation{RemoveQueue: []string{"root.b"}}, nil,
			"root.b is deleted from the new capacity scheduler configuration, but the queue is not yet in stopped state. Current State : RUNNING"},
		{"update unknown queue", Mutation{UpdateQueue: []QueueUpdate{{Queue: "root.zz", Params: map[string]string{"capacity": "1"}}}}, nil, "update-queue root.zz: queue does not exist"},
		{"add existing queue", Mutation{AddQueue: []QueueUpdate{{Queue: "root.a"}}}, nil, "add-queue root.a: queue already exists"},
		{"global update", Mutation{GlobalUpdates: map[string]string{"yarn.scheduler.capacity.node-locality-delay": "0"}},
			func(t *testing.T, c Conf) {
				if c["yarn.scheduler.capacity.node-locality-delay"] != "0" {
					t.Error("global not set")
				}
			}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := base()
			orig := in.Clone()
			out, err := in.Apply(tc.m)
			if !reflect.DeepEqual(in, orig) {
				t.Fatal("Apply modified its input")
			}
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, out)
		})
	}
	stopped := with(base(), "yarn.scheduler.capacity.root.b.state", "STOPPED")
	out, err := stopped.Apply(Mutation{RemoveQueue: []string{"root.b"}})
	if err != nil || out["yarn.scheduler.capacity.root.queues"] != "a" || out["yarn.scheduler.capacity.root.b.capacity"] != "" {
		t.Fatalf("remove stopped queue: %v %v", err, out)
	}
}

// Applying Diff(a, b) to a yields b, for random edits of a valid conf.
func TestDiffRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	props := []string{"capacity", "maximum-capacity", "accessible-node-labels.gpu.capacity", "user-limit-factor", "default-node-label-expression", "state"}
	for i := 0; i < 300; i++ {
		a := base()
		b := a.Clone()
		for j := 0; j < 1+r.IntN(4); j++ {
			q := []string{"root.a", "root.b"}[r.IntN(2)]
			k := Key(q, props[r.IntN(len(props))])
			if r.IntN(4) == 0 {
				delete(b, k)
			} else {
				b[k] = []string{"10", "20", "gpu", "RUNNING", "2"}[r.IntN(5)]
			}
		}
		if r.IntN(3) == 0 {
			b["yarn.scheduler.capacity.root.queues"] = "a,b,c"
			b[Key("root.c", "capacity")] = "5"
		}
		if r.IntN(5) == 0 {
			b["yarn.scheduler.capacity.node-locality-delay"] = "7"
		}
		got, err := a.Apply(Diff(a, b))
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if !reflect.DeepEqual(got, b) {
			t.Fatalf("case %d: round trip differs\n got %v\nwant %v\ndiff %+v", i, got, b, Diff(a, b))
		}
	}
}

func TestCodecs(t *testing.T) {
	m := Mutation{
		AddQueue:      []QueueUpdate{{Queue: "root.c", Params: map[string]string{"capacity": "10", "state": "RUNNING"}}},
		UpdateQueue:   []QueueUpdate{{Queue: "root.a", Params: map[string]string{"capacity": "40"}}},
		RemoveQueue:   []string{"root.old"},
		GlobalUpdates: map[string]string{"yarn.scheduler.capacity.node-locality-delay": "10"},
	}
	x, err := m.EncodeXML()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(x), "<update-queue><queue-name>root.a</queue-name><params><entry><key>capacity</key><value>40</value></entry></params></update-queue>") {
		t.Fatalf("XML shape: %s", x)
	}
	j, err := m.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, ct string
		body     []byte
	}{{"xml", "application/xml", x}, {"json", "application/json", j},
		{"json with root", "application/json", []byte(`{"sched-conf":` + string(j) + `}`)}} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseMutation(tc.body, tc.ct)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, m) {
				t.Fatalf("round trip\n got %+v\nwant %+v", got, m)
			}
		})
	}
	// Jersey's single-object quirk.
	one, err := ParseMutation([]byte(`{"update-queue":{"queue-name":"root.a","params":{"entry":{"key":"capacity","value":"40"}}}}`), "")
	if err != nil || len(one.UpdateQueue) != 1 || one.UpdateQueue[0].Params["capacity"] != "40" {
		t.Fatalf("single object: %+v %v", one, err)
	}
	// The documented XML example (CapacityScheduler.md) parses.
	doc := `<sched-conf><update-queue><queue-name>root.a</queue-name><params><entry><key>maximum-applications</key><value>100</value></entry></params></update-queue><global-updates><entry><key>yarn.scheduler.capacity.queue-mappings-override.enable</key><value>true</value></entry></global-updates></sched-conf>`
	dm, err := ParseMutation([]byte(doc), "application/xml")
	if err != nil || dm.UpdateQueue[0].Params["maximum-applications"] != "100" || dm.GlobalUpdates["yarn.scheduler.capacity.queue-mappings-override.enable"] != "true" {
		t.Fatalf("documented example: %+v %v", dm, err)
	}
	if _, err := ParseMutation([]byte(`<sched-conf><update-queue>`), "application/xml"); err == nil {
		t.Fatal("truncated XML accepted")
	}

	c := base()
	for _, enc := range []func() ([]byte, error){c.MarshalXMLConfInfo, c.MarshalJSONConfInfo} {
		b, err := enc()
		if err != nil {
			t.Fatal(err)
		}
		got, err := ParseConfInfo(b, "")
		if err != nil || !reflect.DeepEqual(got, c) {
			t.Fatalf("conf info round trip: %v %v", err, got)
		}
	}
	if _, err := ParseConfInfo([]byte(`{"nope":1}`), "application/json"); err == nil {
		t.Fatal("conf info without property accepted")
	}
}
