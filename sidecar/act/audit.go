package act

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
)

// Result is the outcome of one apply attempt, as recorded in the audit log.
type Result string

// Apply outcomes.
const (
	ResultApplied      Result = "applied"
	ResultDryRun       Result = "dry-run"
	ResultNoChange     Result = "no-change"
	ResultRejected     Result = "rejected"      // local or RM validation refused it; nothing changed
	ResultVersionMoved Result = "version-moved" // another writer changed the conf; skipped
	ResultRolledBack   Result = "rolled-back"   // applied, verify failed, previous conf restored
	ResultFailed       Result = "failed"        // error; see Error (rollback attempted if needed)
	ResultRefused      Result = "refused"       // the RM's conf store is not mutable
)

// AuditEntry is one line of the append-only audit log (JSON lines): who
// changed what, why, from which version to which (USER-ASKS #7).
type AuditEntry struct {
	Time          time.Time             `json:"time"`
	Cycle         int64                 `json:"cycle"`
	Mode          Mode                  `json:"mode"`
	User          string                `json:"user,omitempty"`
	RM            string                `json:"rm,omitempty"`
	VersionBefore int64                 `json:"versionBefore"`
	VersionAfter  int64                 `json:"versionAfter"`
	Before        map[string]string     `json:"before,omitempty"` // changed properties, old values ("" = unset)
	After         map[string]string     `json:"after,omitempty"`  // changed properties, new values
	Priorities    []plan.PriorityChange `json:"priorities,omitempty"`
	Reasons       []string              `json:"reasons,omitempty"`
	// Calibrations is the exposure of each calibration move the entry
	// writes: the queue, the unmeasured partition, its containers.
	Calibrations []plan.CalibrationExposure `json:"calibrations,omitempty"`
	// Validation is the path taken before the PUT: "rm" (the RM's
	// validate accepted it) or "local-only" (the RM cannot validate; only
	// the sidecar's checks ran, and the RM validated the PUT itself).
	// Empty when the cycle ended before validation.
	Validation ValidationPath `json:"validation,omitempty"`
	// ValidationReason says why local-only (e.g. the leveldb lock error).
	ValidationReason string `json:"validationReason,omitempty"`
	// RollbackResidue lists global keys a rollback could only reset to ""
	// (the RM keeps a global key present once written).
	RollbackResidue []string `json:"rollbackResidue,omitempty"`
	Result          Result   `json:"result"`
	Error           string   `json:"error,omitempty"`
}

// AuditLog appends entries to a file, one JSON object per line, synced to
// disk before Append returns so a crash never loses a recorded attempt.
type AuditLog struct {
	mu sync.Mutex
	f  *os.File
}

// OpenAuditLog opens (creating if needed) an append-only audit log.
func OpenAuditLog(path string) (*AuditLog, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o640)
	if err != nil {
		return nil, fmt.Errorf("open audit log: %w", err)
	}
	return &AuditLog{f: f}, nil
}

// Append writes one entry and fsyncs.
func (l *AuditLog) Append(e AuditEntry) error {
	b, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("encode audit entry: %w", err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := l.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("write audit log %s: %w", l.f.Name(), err)
	}
	if err := l.f.Sync(); err != nil {
		return fmt.Errorf("sync audit log %s: %w", l.f.Name(), err)
	}
	l.clearIntent() // the attempt in flight, if any, is recorded now
	return nil
}

// Close closes the file.
func (l *AuditLog) Close() error { return l.f.Close() }

// SkippedLinesError says which lines of an audit log are not records (a
// hand edit, a disk fault): ReadAudit skips them and returns every other
// entry with this error, so a caller warns and goes on. The log is
// append-only: nothing rewrites or removes those lines.
type SkippedLinesError struct {
	Lines []int    // 1-based line numbers
	Errs  []string // why each is not a record
}

func (e *SkippedLinesError) Error() string {
	if len(e.Lines) == 1 {
		return fmt.Sprintf("audit log line %d is not a record and was skipped (%s)", e.Lines[0], e.Errs[0])
	}
	nums := make([]string, len(e.Lines))
	for i, n := range e.Lines {
		nums[i] = fmt.Sprint(n)
	}
	return fmt.Sprintf("audit log lines %s are not records and were skipped (line %d: %s)", strings.Join(nums, ", "), e.Lines[0], e.Errs[0])
}

// ReadAudit reads every entry of an audit log. A line that is not a record
// (a torn last line after a crash mid-write, a corrupt line) is skipped and
// named in a *SkippedLinesError returned with the other entries; any other
// error is a read failure.
func ReadAudit(r io.Reader) ([]AuditEntry, error) {
	var out []AuditEntry
	var skipped *SkippedLinesError
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	line := 0
	for sc.Scan() {
		line++
		if len(sc.Bytes()) == 0 {
			continue
		}
		var e AuditEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			if skipped == nil {
				skipped = &SkippedLinesError{}
			}
			skipped.Lines = append(skipped.Lines, line)
			skipped.Errs = append(skipped.Errs, err.Error())
			continue
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("audit log line %d: %w", line+1, err)
	}
	if skipped != nil {
		return out, skipped
	}
	return out, nil
}

// ReadAuditFile reads the audit log at path (none yet: no entries), warning
// through log about lines that are not records instead of failing: one
// corrupt line must not stop every command.
func ReadAuditFile(path string, log hclog.Logger) ([]AuditEntry, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("open audit log: %w", err)
	}
	defer f.Close()
	entries, err := ReadAudit(f)
	var skipped *SkippedLinesError
	if errors.As(err, &skipped) {
		if log != nil {
			log.Warn("audit log has lines that are not records; they are skipped and left in place (the log is append-only)",
				"path", path, "lines", skipped.Lines, "first_error", skipped.Errs[0])
		}
		return entries, nil
	}
	if err != nil {
		return entries, fmt.Errorf("%s: %w", path, err)
	}
	return entries, nil
}
