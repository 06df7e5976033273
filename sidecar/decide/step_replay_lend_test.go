package decide

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/progress"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// lendCluster is replayCluster with an exclusive gpu partition of two
// nodes no queue is homed on; ml is unmeasured on gpu (known=false).
func lendCluster(t *testing.T, known bool) (*decideState, []calibrate.JobRecord) {
	t.Helper()
	s, recs := replayCluster(t, 3, known)
	s.Snap.Partitions = []cluster.Partition{{Name: ""}, {Name: "gpu", Exclusive: true}}
	// The default partition is full, with requests pending.
	full := cluster.Resource{MemoryMB: 16384, VCores: 8}
	s.Snap.Nodes = []cluster.Node{
		{ID: "cpu-1:8041", State: cluster.NodeRunning, Total: full, Used: full},
		{ID: "gpu-2:8041", State: cluster.NodeRunning, Partition: "gpu", Total: full},
		{ID: "gpu-1:8041", State: cluster.NodeRunning, Partition: "gpu", Total: full},
	}
	s.Snap.Queues = []cluster.Queue{{Path: "root.etl", Leaf: true, ByPartition: map[string]cluster.QueueCapacity{"": {Pending: cluster.Resource{MemoryMB: 4096, VCores: 2}}}}}
	s.Types = map[string]string{"cpu-1:8041": "cpu", "gpu-1:8041": "gpu", "gpu-2:8041": "gpu"}
	s.Slot = cluster.Resource{MemoryMB: 2048, VCores: 1}
	return s, recs
}

func TestReplayLendStep(t *testing.T) {
	cases := []struct {
		name  string
		known bool
		edit  func(s *decideState)
		off   bool
		want  string // node lent ("" none)
	}{
		{name: "idle exclusive partition, ml unmeasured there: its first node is lent", want: "gpu-1:8041"},
		{name: "turned off (no allow_node_label_changes)", off: true},
		{name: "every class measured there", known: true},
		{name: "non-exclusive partition (the default partition borrows it already)",
			edit: func(s *decideState) { s.Snap.Partitions[1].Exclusive = false }},
		{name: "a leaf is homed there", edit: func(s *decideState) {
			conf := s.Live.Clone()
			conf["yarn.scheduler.capacity.root.ml.default-node-label-expression"] = "gpu"
			tree, err := schedconf.ParseTree(conf)
			if err != nil {
				panic(err)
			}
			s.Live, s.Tree = conf, tree
		}},
		{name: "something runs there (an app naming the label)",
			edit: func(s *decideState) { s.Snap.Nodes[2].NumContainers = 1 }},
		{name: "no backlog in the default partition (a slower type would only risk stragglers)",
			edit: func(s *decideState) { s.Snap.Nodes[0].Used = cluster.Resource{} }},
		{name: "nothing pending in the default partition",
			edit: func(s *decideState) { s.Snap.Queues = nil }},
		{name: "node types by label: the lent node would measure another type",
			edit: func(s *decideState) { s.Types["gpu-1:8041"], s.Types["gpu-2:8041"] = "gpu@gpu", "gpu@gpu" }},
		{name: "one node only: a partition is never emptied",
			edit: func(s *decideState) { s.Snap.Nodes = s.Snap.Nodes[:2] }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, recs := lendCluster(t, c.known)
			if c.edit != nil {
				c.edit(s)
			}
			st := replayLendStep{Enabled: !c.off, Jobs: func() []calibrate.JobRecord { return recs }, Lend: &ReplayLend{}, TypeOf: hostType}
			if err := st.Run(s); err != nil {
				t.Fatal(err)
			}
			if c.want == "" {
				if !s.Lend.Empty() {
					t.Fatalf("lend %v, want none", s.Lend.Nodes)
				}
				return
			}
			if !s.Lend.Lend || len(s.Lend.Nodes) != 1 || s.Lend.Nodes[c.want] != "" || len(s.Lend.Add) > 0 {
				t.Fatalf("lend %+v, want %s to the default partition", s.Lend, c.want)
			}
			if !strings.Contains(s.Lend.Reasons[0], "ml") {
				t.Errorf("reason %q does not name the unmeasured class", s.Lend.Reasons[0])
			}
			// The audit's exposure: the lent node's containers of the slot
			// size (16 GB, 8 vcores in 2 GB, 1-vcore slots).
			if want := []plan.CalibrationExposure{{Partition: "gpu", Containers: 8}}; !reflect.DeepEqual(s.Lend.Calibrations, want) {
				t.Errorf("exposure %+v, want %+v", s.Lend.Calibrations, want)
			}
		})
	}
}

// A lend's life: written, seen in the default partition, kept while ml is
// unmeasured on gpu, returned once it is measured (the replay then runs
// again), over when seen back, and the partition not lent again within the
// window.
func TestReplayLendStepReturns(t *testing.T) {
	s, recs := lendCluster(t, false)
	lend, held := &ReplayLend{}, &replayChoice{at: s.Snap.Time}
	st := replayLendStep{Enabled: true, Jobs: func() []calibrate.JobRecord { return recs }, Lend: lend, Held: held, TypeOf: hostType}
	step := func(d time.Duration, partition string, measured bool) act.LabelChange {
		t.Helper()
		s.Snap.Time = s.Snap.Time.Add(d)
		s.Snap.Nodes[2].Partition = partition
		if measured {
			s.Rates = replayRatesWithGPU()
		}
		s.Lend = act.LabelChange{}
		if err := st.Run(s); err != nil {
			t.Fatal(err)
		}
		return s.Lend
	}
	if ch := step(0, "gpu", false); ch.Nodes["gpu-1:8041"] != "" || len(ch.Nodes) != 1 {
		t.Fatalf("first cycle: %v, want gpu-1 lent", ch.Nodes)
	}
	if ch := step(30*time.Second, "gpu", false); !ch.Empty() {
		t.Fatalf("lend written, not yet seen: %v, want no write", ch.Nodes)
	}
	if ch := step(30*time.Second, "", false); !ch.Empty() || !lend.Out {
		t.Fatalf("lent, ml unmeasured: %v (out %v), want no write", ch.Nodes, lend.Out)
	}
	// The backlog clears: the node stays through a lull, and comes back
	// before ml is measured once the default partition has had room for
	// lendRoomFor.
	s.Snap.Queues = nil
	if ch := step(time.Minute, "", false); !ch.Empty() {
		t.Fatalf("a minute's lull: %v, want the node kept", ch.Nodes)
	}
	if ch := step(lendRoomFor, "", false); ch.Nodes["gpu-1:8041"] != "gpu" {
		t.Fatalf("no backlog for %s: %v, want gpu-1 back to gpu", lendRoomFor, ch.Nodes)
	}
	*lend = ReplayLend{Node: "gpu-1:8041", Partition: "gpu", Type: "gpu", Since: s.Snap.Time, Out: true}
	s.Snap.Queues = []cluster.Queue{{Path: "root.etl", Leaf: true, ByPartition: map[string]cluster.QueueCapacity{"": {Pending: cluster.Resource{MemoryMB: 4096, VCores: 2}}}}}
	ran := held.at
	ch := step(10*time.Minute, "", true)
	if got, ok := ch.Nodes["gpu-1:8041"]; !ok || got != "gpu" || !ch.Lend {
		t.Fatalf("ml measured: %v, want gpu-1 back to gpu", ch.Nodes)
	}
	if !held.at.Before(ran) {
		t.Errorf("the replay was not brought forward after the lend measured ml")
	}
	if ch := step(30*time.Second, "gpu", true); !ch.Empty() || lend.Node != "" {
		t.Fatalf("back: %v (lend %+v), want over", ch.Nodes, lend)
	}
	s.Rates = nil // unmeasured again: not lent within the hour, lent after it
	if ch := step(30*time.Minute, "gpu", false); !ch.Empty() {
		t.Fatalf("lent again within the hour: %v", ch.Nodes)
	}
	if ch := step(31*time.Minute, "gpu", false); ch.Nodes["gpu-1:8041"] != "" || len(ch.Nodes) != 1 {
		t.Fatalf("an hour later, ml unmeasured: %v, want gpu-1 lent again", ch.Nodes)
	}
}

// A lend whose write never shows (the RM refused it) is given up.
func TestReplayLendStepWriteNeverSeen(t *testing.T) {
	s, recs := lendCluster(t, false)
	lend := &ReplayLend{}
	st := replayLendStep{Enabled: true, Jobs: func() []calibrate.JobRecord { return recs }, Lend: lend, TypeOf: hostType}
	if err := st.Run(s); err != nil || s.Lend.Empty() {
		t.Fatalf("no lend: %v", err)
	}
	s.Snap.Time = s.Snap.Time.Add(3 * time.Minute)
	s.Lend = act.LabelChange{}
	if err := st.Run(s); err != nil {
		t.Fatal(err)
	}
	if lend.Node != "" || lend.Done["gpu"].IsZero() || !s.Lend.Empty() {
		t.Fatalf("lend %+v, write %v: want given up, gpu done", lend, s.Lend.Nodes)
	}
}

func TestLendCheck(t *testing.T) {
	before := map[string]string{"a": "", "b": "gpu", "c": "gpu"}
	cases := []struct {
		next map[string]string
		ok   bool
	}{
		{map[string]string{"b": ""}, true},
		{map[string]string{"b": "gpu"}, false},
		{map[string]string{"a": "gpu"}, true},
		{map[string]string{"a": ""}, false},
		{map[string]string{"b": "", "c": ""}, false},
		{map[string]string{"b": "other"}, false},
	}
	for _, c := range cases {
		if err := act.LendCheck(before, c.next); (err == nil) != c.ok {
			t.Errorf("LendCheck(%v) = %v, want ok=%v", c.next, err, c.ok)
		}
	}
}

func replayRatesWithGPU() progress.RateMap {
	return progress.RateMap{"etl": {"cpu": 1, "gpu": 1}, "ml": {"cpu": 1, "gpu": 3}}
}

// hostType types nodes by host name, as node_types rules by host pattern
// do: the type does not change with the label.
func hostType(n cluster.Node) string { return strings.SplitN(n.ID, "-", 2)[0] }

// A class measured slower on the lent node's type than on every other
// node of the default partition ends the lend at once, whatever is still
// unmeasured: while lent, the node only slows that class.
func TestReplayLendStepEndsOnASlowerClass(t *testing.T) {
	s, recs := lendCluster(t, false)
	lend := &ReplayLend{Node: "gpu-1:8041", Partition: "gpu", Type: "gpu", Since: s.Snap.Time, Out: true, Done: map[string]time.Time{}}
	s.Snap.Nodes[2].Partition = ""
	st := replayLendStep{Enabled: true, Jobs: func() []calibrate.JobRecord { return recs }, Lend: lend, TypeOf: hostType}
	s.Rates = progress.RateMap{"etl": {"cpu": 1, "gpu": 0.6}, "ml": {"cpu": 1}}
	if err := st.Run(s); err != nil {
		t.Fatal(err)
	}
	if s.Lend.Nodes["gpu-1:8041"] != "gpu" || !strings.Contains(s.Lend.Reasons[0], "class etl measured 0.60×") {
		t.Fatalf("lend %+v, want gpu-1 back to gpu because etl is slower there", s.Lend)
	}
	// Back, that type is not lent again while ml is still unmeasured.
	*lend = ReplayLend{Done: map[string]time.Time{"gpu": s.Snap.Time.Add(-2 * time.Hour)}}
	s.Snap.Nodes[2].Partition = "gpu"
	s.Lend = act.LabelChange{}
	if err := st.Run(s); err != nil {
		t.Fatal(err)
	}
	if !s.Lend.Empty() {
		t.Fatalf("lent again %v, with etl measured slower on gpu", s.Lend.Nodes)
	}
	// Measured as fast as elsewhere: the lend goes on while ml is unmeasured.
	s2, _ := lendCluster(t, false)
	lend2 := &ReplayLend{Node: "gpu-1:8041", Partition: "gpu", Type: "gpu", Since: s2.Snap.Time, Out: true, Done: map[string]time.Time{}}
	s2.Snap.Nodes[2].Partition = ""
	s2.Rates = progress.RateMap{"etl": {"cpu": 1, "gpu": 1}, "ml": {"cpu": 1}}
	st.Lend = lend2
	if err := st.Run(s2); err != nil {
		t.Fatal(err)
	}
	if !s2.Lend.Empty() {
		t.Fatalf("lend %+v, want it kept", s2.Lend.Nodes)
	}
}
