package sidecar

import (
	"reflect"
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

func TestAdminConf(t *testing.T) {
	const a, b, c = "yarn.scheduler.capacity.root.a.capacity", "yarn.scheduler.capacity.root.b.capacity", "yarn.scheduler.capacity.root.a.accessible-node-labels.gpu.capacity"
	write := func(res act.Result, before, after map[string]string) act.AuditEntry {
		return act.AuditEntry{Mode: act.ModeApply, Result: res, Before: before, After: after}
	}
	cases := []struct {
		name     string
		live     schedconf.Conf
		entries  []act.AuditEntry
		want     schedconf.Conf
		restored []string
		changed  []string
	}{
		{"no log: live is the admin's", schedconf.Conf{a: "15"}, nil, schedconf.Conf{a: "15"}, nil, nil},
		{"two writes: the first before", schedconf.Conf{a: "19.8", b: "80.2"}, []act.AuditEntry{
			write(act.ResultApplied, map[string]string{a: "15", b: "85"}, map[string]string{a: "17", b: "83"}),
			write(act.ResultApplied, map[string]string{a: "17", b: "83"}, map[string]string{a: "19.8", b: "80.2"}),
		}, schedconf.Conf{a: "15", b: "85"}, []string{a, b}, nil},
		{"dry runs and rollbacks wrote nothing", schedconf.Conf{a: "15"}, []act.AuditEntry{
			{Mode: act.ModeDryRun, Result: act.ResultDryRun, Before: map[string]string{a: "15"}, After: map[string]string{a: "30"}},
			write(act.ResultRolledBack, map[string]string{a: "15"}, map[string]string{a: "30"}),
		}, schedconf.Conf{a: "15"}, nil, nil},
		{"a partition the sidecar created is unset", schedconf.Conf{a: "15", c: "60"}, []act.AuditEntry{
			write(act.ResultApplied, map[string]string{c: ""}, map[string]string{c: "60"}),
		}, schedconf.Conf{a: "15"}, []string{c}, nil},
		{"label records' node keys are not configuration", schedconf.Conf{a: "15"}, []act.AuditEntry{
			write(act.ResultApplied, map[string]string{"node-label:gpu-01:8041": ""}, map[string]string{"node-label:gpu-01:8041": "gpu"}),
		}, schedconf.Conf{a: "15"}, nil, nil},
		{"changed by someone else since", schedconf.Conf{a: "30"}, []act.AuditEntry{
			write(act.ResultApplied, map[string]string{a: "15"}, map[string]string{a: "19.8"}),
		}, schedconf.Conf{a: "30"}, nil, []string{a}},
		{"changed outside, then the sidecar wrote again", schedconf.Conf{a: "25"}, []act.AuditEntry{
			write(act.ResultApplied, map[string]string{a: "15"}, map[string]string{a: "19.8"}),
			write(act.ResultChangedOutside, map[string]string{a: "19.8"}, map[string]string{a: "30"}),
			write(act.ResultApplied, map[string]string{a: "30"}, map[string]string{a: "25"}),
		}, schedconf.Conf{a: "30"}, []string{a}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, restored, changed := AdminConf(tc.live, tc.entries)
			if !reflect.DeepEqual(got, tc.want) || !reflect.DeepEqual(restored, tc.restored) || !reflect.DeepEqual(changed, tc.changed) {
				t.Errorf("AdminConf = %v restored %v changed %v; want %v, %v, %v", got, restored, changed, tc.want, tc.restored, tc.changed)
			}
		})
	}
}
