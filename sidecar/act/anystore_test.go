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

func TestConfHash(t *testing.T) {
	a := schedconf.Conf{"x": "1", "y": "2"}
	b := schedconf.Conf{"y": "2", "x": "1"}
	if act.ConfHash(a) != act.ConfHash(b) || act.ConfHash(a) < 0 {
		t.Error("the hash depends on map order or is negative")
	}
	if act.ConfHash(a) == act.ConfHash(schedconf.Conf{"x": "1", "y": "3"}) || act.ConfHash(a) == act.ConfHash(schedconf.Conf{"x": "12"}) {
		t.Error("a changed configuration kept its hash")
	}
}
