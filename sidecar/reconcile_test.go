package sidecar

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

type fixedConf struct {
	conf    schedconf.Conf
	version int64
}

func (f fixedConf) SchedulerConf(context.Context) (schedconf.Conf, error) { return f.conf, nil }
func (f fixedConf) ConfVersion(context.Context) (int64, error)            { return f.version, nil }

// What a restart records for each state a killed predecessor can leave.
func TestReconcileAudit(t *testing.T) {
	const k = "yarn.scheduler.capacity.root.a.capacity"
	applied := AuditEntry{Mode: ModeApply, VersionBefore: 3, VersionAfter: 4, Before: map[string]string{k: "50"}, After: map[string]string{k: "60"}, Result: ResultApplied}
	intent := AuditEntry{Mode: ModeApply, VersionBefore: 4, VersionAfter: 4, Before: map[string]string{k: "60"}, After: map[string]string{k: "70"}, Result: "pending"}
	cases := []struct {
		name    string
		lines   []AuditEntry
		intent  *AuditEntry
		torn    bool
		live    fixedConf
		want    Result // "" = nothing recorded
		wantLen int
	}{
		{"in step", []AuditEntry{applied}, nil, false, fixedConf{schedconf.Conf{k: "60"}, 4}, "", 1},
		{"PUT landed, line lost", []AuditEntry{applied}, &intent, false, fixedConf{schedconf.Conf{k: "70"}, 5}, ResultRecovered, 2},
		{"killed before the PUT", []AuditEntry{applied}, &intent, false, fixedConf{schedconf.Conf{k: "60"}, 4}, ResultNotApplied, 2},
		{"rolled back, line lost", []AuditEntry{applied}, &intent, false, fixedConf{schedconf.Conf{k: "60"}, 6}, ResultNotApplied, 2},
		{"neither", []AuditEntry{applied}, &intent, false, fixedConf{schedconf.Conf{k: "65"}, 5}, ResultChangedOutside, 2},
		{"line written, intent not removed", []AuditEntry{applied, {Mode: ModeApply, VersionBefore: 4, VersionAfter: 5, Before: intent.Before, After: intent.After, Result: ResultApplied}}, &intent, false, fixedConf{schedconf.Conf{k: "70"}, 5}, "", 2},
		{"another writer since", []AuditEntry{applied}, nil, false, fixedConf{schedconf.Conf{k: "55"}, 9}, ResultChangedOutside, 2},
		{"torn last line is cut", []AuditEntry{applied}, nil, true, fixedConf{schedconf.Conf{k: "60"}, 4}, "", 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "audit.jsonl")
			l, err := OpenAuditLog(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range tc.lines {
				if err := l.Append(e); err != nil {
					t.Fatal(err)
				}
			}
			l.Close()
			if tc.intent != nil {
				if err := writeIntent(intentPath(path), *tc.intent); err != nil {
					t.Fatal(err)
				}
			}
			if tc.torn {
				f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
				f.WriteString(`{"time":"2026-01-01T00:00:00Z","cyc`)
				f.Close()
			}
			rec, err := ReconcileAudit(context.Background(), path, tc.live, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := Result("")
			if rec != nil {
				got = rec.Result
			}
			if got != tc.want {
				t.Fatalf("recorded %q, want %q (%+v)", got, tc.want, rec)
			}
			if _, err := os.Stat(intentPath(path)); err == nil {
				t.Fatal("intent left behind after reconciliation")
			}
			b, _ := os.ReadFile(path)
			entries, err := ReadAudit(bytes.NewReader(b))
			if err != nil || len(entries) != tc.wantLen {
				t.Fatalf("audit after reconciliation: %d entries, %v", len(entries), err)
			}
			if tc.want == ResultRecovered && entries[len(entries)-1].VersionAfter != tc.live.version {
				t.Fatalf("recovered record has versionAfter %d, live %d", entries[len(entries)-1].VersionAfter, tc.live.version)
			}
		})
	}
}
