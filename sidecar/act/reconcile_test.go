package act

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

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

// One corrupt line in the middle of the audit log is skipped with a warning
// naming its line; the records around it still count, and the log is left
// as it is (append-only: never rewritten). It used to stop every command.
func TestReconcileSkipsCorruptLine(t *testing.T) {
	const k = "yarn.scheduler.capacity.root.a.capacity"
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	first := `{"time":"2026-01-01T00:00:00Z","cycle":1,"mode":"apply","versionBefore":3,"versionAfter":4,"before":{"` + k + `":"50"},"after":{"` + k + `":"60"},"result":"applied"}`
	last := `{"time":"2026-01-01T00:01:00Z","cycle":2,"mode":"apply","versionBefore":4,"versionAfter":5,"before":{"` + k + `":"60"},"after":{"` + k + `":"70"},"result":"applied"}`
	raw := first + "\n" + `{"time": oops, this line was hand-edited` + "\n" + last + "\n"
	if err := os.WriteFile(path, []byte(raw), 0o600); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	log := hclog.New(&hclog.LoggerOptions{Output: &logs})
	// The live conf holds the last record's value at its version: in step,
	// which only the record after the corrupt line tells.
	rec, err := ReconcileAudit(context.Background(), path, fixedConf{schedconf.Conf{k: "70"}, 5}, log)
	if err != nil || rec != nil {
		t.Fatalf("reconcile = %+v, %v; want nothing to record and no error", rec, err)
	}
	if !strings.Contains(logs.String(), "lines=[2]") {
		t.Errorf("the warning does not name line 2: %s", logs.String())
	}
	if b, _ := os.ReadFile(path); string(b) != raw {
		t.Errorf("the audit log was rewritten:\n%s", b)
	}
	entries, err := ReadAudit(strings.NewReader(raw))
	var skipped *SkippedLinesError
	if !errors.As(err, &skipped) || len(skipped.Lines) != 1 || skipped.Lines[0] != 2 || len(entries) != 2 {
		t.Errorf("ReadAudit = %d entries, %v; want 2 and line 2 skipped", len(entries), err)
	}
}
