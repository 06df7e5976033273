package act

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// Restart reconciliation. Before every scheduler-conf PUT the applier
// writes (and fsyncs) an intent — the properties it is about to change and
// the version it planned on — to <audit log>.pending. The attempt's audit
// line, appended once the PUT is verified (or rolled back), removes it. A
// process killed in between leaves the intent behind; at the next start
// ReconcileAudit reads the live configuration and version, says what
// happened — the PUT landed, did not land, or something else changed the
// queues — and appends that as a record, so every change YARN holds is
// explained by an audit record. The audit log itself keeps one line per
// attempt.

// Results written by the restart reconciliation.
const (
	// ResultRecovered: at restart, the live conf held the interrupted
	// attempt's new values: the PUT landed but its process died before
	// recording it.
	ResultRecovered Result = "recovered"
	// ResultNotApplied: at restart, the live conf held the interrupted
	// attempt's old values: the PUT never landed (or its rollback did).
	ResultNotApplied Result = "not-applied"
	// ResultChangedOutside: at restart, the live conf matched neither, or
	// its version moved since the last record: another writer changed it.
	// Before/After hold the recorded and the live values.
	ResultChangedOutside Result = "changed-outside"
)

// intentPath is where the intent of the PUT in flight is kept.
func intentPath(auditPath string) string { return auditPath + ".pending" }

// recordIntent writes the intent of a PUT about to be sent (apply mode
// only: dry-run sends nothing), atomically: temp file, fsync, rename.
func (a *Applier) recordIntent(plan *plan.Plan, version int64) error {
	if a.Mode != ModeApply || a.Audit == nil {
		return nil
	}
	e := AuditEntry{Time: a.now(), Cycle: a.Cycle, Mode: a.Mode, User: a.User, VersionBefore: version,
		VersionAfter: version, Reasons: plan.Reasons, Result: "pending"}
	e.Before, e.After = changedProps(plan.Base, plan.Desired)
	if err := writeIntent(intentPath(a.Audit.f.Name()), e); err != nil {
		return fmt.Errorf("record intent before the PUT (nothing sent): %w", err)
	}
	return nil
}

func writeIntent(path string, e AuditEntry) error {
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o640)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// clearIntent removes the intent once the attempt's line is on disk.
func (l *AuditLog) clearIntent() {
	if err := os.Remove(intentPath(l.f.Name())); err != nil && !errors.Is(err, os.ErrNotExist) {
		// Harmless: the next start finds the attempt's line and drops it.
		return
	}
}

func readIntent(path string) (*AuditEntry, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reconcile: read intent %s: %w", path, err)
	}
	var e AuditEntry
	if err := json.Unmarshal(b, &e); err != nil {
		return nil, fmt.Errorf("reconcile: intent %s is not an audit entry: %w", path, err)
	}
	return &e, nil
}

// ConfReader is what reconciliation reads from the RM.
type ConfReader interface {
	SchedulerConf(ctx context.Context) (schedconf.Conf, error)
	ConfVersion(ctx context.Context) (int64, error)
}

// ErrRMRead marks a reconciliation that failed reading the
// ResourceManager: worth a retry (it may be failing over). Any other
// failure is the audit log's own, and retrying cannot mend it.
var ErrRMRead = errors.New("ResourceManager unreadable")

// InterruptedWriteRecoverer is implemented by ConfReaders whose write can
// be left half-done by a kill (the file store: the file written, no RM
// refreshed): reconciliation lets them put it right before it judges.
type InterruptedWriteRecoverer interface {
	RecoverInterruptedWrite(ctx context.Context) (string, error)
}

// ReconcileAudit repairs a torn last line of the audit log (a record whose
// write never returned is not a record), then compares the last record
// with the live configuration and version and appends what it finds. It
// returns the appended record, nil when the log and YARN already agree.
func ReconcileAudit(ctx context.Context, path string, rm ConfReader, log hclog.Logger) (*AuditEntry, error) {
	if log == nil {
		log = hclog.NewNullLogger()
	}
	if err := repairTornTail(path, log); err != nil {
		return nil, err
	}
	entries, err := ReadAuditFile(path, log)
	if err != nil {
		return nil, fmt.Errorf("reconcile: %w", err)
	}
	last := lastApplyRecord(entries)
	intent, err := readIntent(intentPath(path))
	if err != nil {
		return nil, err
	}
	if intent != nil && last != nil && sameAttempt(*intent, *last) {
		intent = nil // its line was written; only the removal was cut short
	}
	if intent != nil {
		last = intent
		if r, ok := rm.(InterruptedWriteRecoverer); ok {
			note, err := r.RecoverInterruptedWrite(ctx)
			if err != nil {
				return nil, fmt.Errorf("reconcile: recover the interrupted write: %w", err)
			}
			if note != "" {
				log.Warn("restart reconciliation", "detail", note)
			}
		}
	}
	if last == nil {
		return nil, nil
	}
	live, err := rm.SchedulerConf(ctx)
	if err != nil {
		return nil, fmt.Errorf("reconcile: read live scheduler-conf: %w (%w)", err, ErrRMRead)
	}
	version, err := rm.ConfVersion(ctx)
	if err != nil {
		return nil, fmt.Errorf("reconcile: read scheduler-conf version: %w (%w)", err, ErrRMRead)
	}
	rec := judge(*last, live, version)
	if rec == nil {
		if err := os.Remove(intentPath(path)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("reconcile: %w", err)
		}
		return nil, nil
	}
	rec.Time = time.Now().UTC()
	al, err := OpenAuditLog(path)
	if err != nil {
		return nil, err
	}
	defer al.Close()
	if err := al.Append(*rec); err != nil { // also clears the intent
		return nil, fmt.Errorf("reconcile: %w", err)
	}
	log.Warn("restart reconciliation recorded what the last run left", "result", rec.Result,
		"version_before", rec.VersionBefore, "version_after", rec.VersionAfter, "detail", rec.Error)
	return rec, nil
}

// judge decides what the live conf says about the last apply-mode record.
func judge(last AuditEntry, live schedconf.Conf, version int64) *AuditEntry {
	rec := &AuditEntry{Cycle: last.Cycle, Mode: last.Mode, User: last.User, VersionBefore: last.VersionAfter, VersionAfter: version}
	if last.Result == "pending" {
		rec.VersionBefore = last.VersionBefore
		switch {
		case matches(live, last.After):
			rec.Result, rec.Before, rec.After = ResultRecovered, last.Before, last.After
			rec.Error = "the PUT landed but the sidecar stopped before recording it; recorded at restart"
		case matches(live, last.Before) && version == last.VersionBefore:
			rec.Result = ResultNotApplied
			rec.Error = "the sidecar stopped before the PUT landed; nothing changed"
		case matches(live, last.Before):
			rec.Result = ResultNotApplied
			rec.Error = "the sidecar stopped after the PUT; the conf holds the old values again (rolled back)"
		default:
			rec.Result, rec.Before, rec.After = ResultChangedOutside, last.After, liveOn(live, last.After)
			rec.Error = "the live conf matches neither the old nor the new values of the interrupted apply"
		}
		return rec
	}
	if last.VersionAfter > 0 && version != last.VersionAfter {
		rec.Result, rec.Before, rec.After = ResultChangedOutside, last.After, liveOn(live, last.After)
		rec.Error = fmt.Sprintf("scheduler-conf version is %d, the last record says %d: changed by another writer since", version, last.VersionAfter)
		return rec
	}
	return nil
}

// sameAttempt: the intent's attempt already has its line (same changes
// from the same version).
func sameAttempt(intent, rec AuditEntry) bool {
	return rec.VersionBefore == intent.VersionBefore && reflect.DeepEqual(rec.Before, intent.Before) &&
		reflect.DeepEqual(rec.After, intent.After)
}

// lastApplyRecord is the last record written in apply mode (dry-run ones
// say nothing about what YARN holds).
func lastApplyRecord(entries []AuditEntry) *AuditEntry {
	for i := len(entries) - 1; i >= 0; i-- {
		if entries[i].Mode == ModeApply {
			return &entries[i]
		}
	}
	return nil
}

func matches(live schedconf.Conf, want map[string]string) bool {
	for k, v := range want {
		if live[k] != v {
			return false
		}
	}
	return true
}

func liveOn(live schedconf.Conf, keys map[string]string) map[string]string {
	out := map[string]string{}
	ks := make([]string, 0, len(keys))
	for k := range keys {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	for _, k := range ks {
		out[k] = live[k]
	}
	return out
}

// repairTornTail cuts a last line without its newline: a write killed
// half-way (Append had not returned, so nothing relied on it). Without the
// cut, the next record would be glued to the torn one.
func repairTornTail(path string, log hclog.Logger) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) || len(b) == 0 {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reconcile: read audit log: %w", err)
	}
	if b[len(b)-1] == '\n' {
		return nil
	}
	keep := bytes.LastIndexByte(b, '\n') + 1
	log.Warn("audit log ends with a torn record; cutting it", "path", path, "bytes", len(b)-keep)
	if err := os.Truncate(path, int64(keep)); err != nil {
		return fmt.Errorf("reconcile: cut torn audit record: %w", err)
	}
	return nil
}
