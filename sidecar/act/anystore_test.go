package act_test

import (
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

func TestOverlayRunning(t *testing.T) {
	p := schedconf.Prefix
	file := schedconf.Conf{p + "root.a.capacity": "50.0", p + "root.b.capacity": "50", p + "root.b.maximum-capacity": "100",
		p + "root.c.capacity": "[memory=1024,vcores=1]", p + "root.a.accessible-node-labels": "gpu"}
	for _, tc := range []struct {
		name    string
		running schedconf.Conf
		want    map[string]string
	}{
		{"same values in other spellings keep the file's", schedconf.Conf{p + "root.a.capacity": "50", p + "root.b.capacity": "50.00001",
			p + "root.c.capacity": "[memory=1024,vcores=1]"}, map[string]string{p + "root.a.capacity": "50.0", p + "root.b.capacity": "50"}},
		{"the RM's capacity where it differs (an edit not refreshed)", schedconf.Conf{p + "root.b.capacity": "40", p + "root.c.capacity": "[memory=2048,vcores=1]"},
			map[string]string{p + "root.b.capacity": "40", p + "root.c.capacity": "[memory=2048,vcores=1]"}},
		{"keys the file lacks stay absent; labels stay the file's", schedconf.Conf{p + "root.a.maximum-capacity": "100", p + "root.a.accessible-node-labels": "*"},
			map[string]string{p + "root.a.maximum-capacity": "", p + "root.a.accessible-node-labels": "gpu"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := act.OverlayRunning(file, tc.running)
			for k, v := range tc.want {
				if got[k] != v {
					t.Errorf("%s = %q, want %q", k, got[k], v)
				}
			}
			if file[p+"root.b.capacity"] != "50" {
				t.Error("the file's conf was changed in place")
			}
		})
	}
}

// A file write no refresh took that only routed a queue (the kill test's
// flake): the overlay shows the label expression the RM runs, not the
// file's; an inherited expression is not written out where they agree.
func TestOverlayRunningLabelExpression(t *testing.T) {
	p := schedconf.Prefix
	label := func(q string) string { return schedconf.Key(q, "default-node-label-expression") }
	file := schedconf.Conf{p + "root.queues": "etl,bi,ml,research", p + "root.research.queues": "dl,adhoc",
		p + "root.etl.capacity": "50", label("root.etl"): "gpu", label("root.bi"): "", label("root.research"): "gpu"}
	tree := schedconf.Conf{p + "root.queues": "etl,bi,ml,research", p + "root.research.queues": "dl,adhoc"}
	with := func(kv ...string) schedconf.Conf {
		c := tree.Clone()
		for i := 0; i < len(kv); i += 2 {
			c[kv[i]] = kv[i+1]
		}
		return c
	}
	for _, tc := range []struct {
		name    string
		running schedconf.Conf
		want    map[string]string
		absent  []string
	}{
		{"the answer leaves out an empty expression: the RM runs none", with(p+"root.etl.capacity", "50", label("root.research"), "gpu",
			label("root.research.dl"), "gpu", label("root.research.adhoc"), "gpu"),
			map[string]string{label("root.etl"): "", p + "root.etl.capacity": "50", label("root.research"): "gpu"},
			[]string{label("root.research.dl"), label("root.ml")}},
		{"the RM runs a label the file cleared or lacks", with(label("root.etl"), "gpu", label("root.bi"), "gpu", label("root.ml"), "gpu",
			label("root.research"), "gpu", label("root.research.dl"), "gpu", label("root.research.adhoc"), "gpu"),
			map[string]string{label("root.bi"): "gpu", label("root.ml"): "gpu"}, []string{label("root.research.adhoc")}},
		{"a child runs none under a parent with one", with(label("root.etl"), "gpu", label("root.research"), "gpu", label("root.research.dl"), "gpu"),
			map[string]string{label("root.research.adhoc"): ""}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := act.OverlayRunning(file, tc.running)
			for k, v := range tc.want {
				if gv, ok := got[k]; gv != v || !ok {
					t.Errorf("%s = %q (set %v), want %q", k, gv, ok, v)
				}
			}
			for _, k := range tc.absent {
				if v, ok := got[k]; ok {
					t.Errorf("%s = %q, want it left unset (inherited, or none)", k, v)
				}
			}
			if file[label("root.etl")] != "gpu" {
				t.Error("the file's conf was changed in place")
			}
		})
	}
}
