package act

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/hashicorp/go-hclog"

	"github.com/yarn-sidecar/yarn-sidecar/internal/killpoint"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
	"github.com/yarn-sidecar/yarn-sidecar/yarn"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/csxml"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/rmadmin"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// RefreshFunc asks the RM at an admin address to refresh its queues
// (yarn/rmadmin.RefreshQueues); a refusal wraps *rmadmin.RefusedError.
type RefreshFunc func(ctx context.Context, adminAddr, user string) error

// FileRefresher is the file store's writer (act.via: refresh-queues), what
// an admin or Ambari / Cloudera Manager does: edit capacity-scheduler.xml
// and run refreshQueues on every RM. It is reached only through the
// Applier (AnyStore.UpdateConf), so the audit line, the intent record
// written before the file, the rate limit, the bands, the verify (through
// /scheduler: AnyStore reads what the RM runs) and the rollback are the
// mutation API's.
//
// The file is written atomically (temp file, fsync, rename, directory
// fsync) with only the changed properties edited (csxml.Edit: comments,
// order and layout kept), the previous file kept beside it as
// <file>.sidecar-previous. A refused or failed refresh restores the
// previous file and refreshes again every RM that had taken the new one,
// then returns the refusal: the applier reads back the old queues and
// records a rejection.
type FileRefresher struct {
	// Path is capacity-scheduler.xml, the same file for every RM of
	// AdminAddrs (one RM, or a path they share).
	Path string
	// AdminAddrs are the RMs' yarn.resourcemanager.admin.address values.
	AdminAddrs []string
	User       string
	Refresh    RefreshFunc
	Log        hclog.Logger
}

// ErrFileNotRefreshed: capacity-scheduler.xml differs from what the RM
// runs (an edit nobody refreshed): the sidecar will not refresh someone
// else's change along with its own.
var ErrFileNotRefreshed = errors.New("capacity-scheduler.xml differs from the queues the ResourceManager runs (an edit not refreshed yet?): not writing, so that a refresh does not load someone else's change with the sidecar's")

// PreviousPath is where the file before the sidecar's last write is kept.
func (f *FileRefresher) PreviousPath() string { return f.Path + ".sidecar-previous" }

// Write applies m to the file and refreshes every RM. live is the
// configuration the applier planned on (AnyStore's: the file with the RM's
// running capacities).
func (f *FileRefresher) Write(ctx context.Context, live schedconf.Conf, m schedconf.Mutation) error {
	if len(f.AdminAddrs) == 0 {
		return errors.New("refresh-queues: no ResourceManager admin address (yarn.resourcemanager.admin.address)")
	}
	data, err := os.ReadFile(f.Path)
	if err != nil {
		return fmt.Errorf("refresh-queues: read %s: %w", f.Path, err)
	}
	file, err := yarn.CapacitySchedulerConf(f.Path)
	if err != nil {
		return fmt.Errorf("refresh-queues: %w", err)
	}
	if k, fv, rv, differs := fileDiffers(file, live); differs {
		// Our own write that no refresh took (a rollback after a verify
		// difference, a kill before the refresh): put the previous file back
		// and apply m to it. Anyone else's edit: refuse.
		restored, rerr := f.recoverOwnWrite(live)
		if rerr != nil || !restored {
			return errors.Join(fmt.Errorf("%w (%s: file %q, running %q)", ErrFileNotRefreshed, k, fv, rv), rerr)
		}
		if data, err = os.ReadFile(f.Path); err != nil {
			return fmt.Errorf("refresh-queues: read %s: %w", f.Path, err)
		}
		if file, err = yarn.CapacitySchedulerConf(f.Path); err != nil {
			return fmt.Errorf("refresh-queues: %w", err)
		}
	}
	next, err := file.Apply(m)
	if err != nil {
		return fmt.Errorf("refresh-queues: apply the change to %s: %w", f.Path, err)
	}
	set, unset := csxml.Changes(file, next)
	out, err := csxml.Edit(data, set, unset)
	if err != nil {
		return fmt.Errorf("refresh-queues: edit %s: %w", f.Path, err)
	}
	mode := os.FileMode(0o644)
	if st, err := os.Stat(f.Path); err == nil {
		mode = st.Mode().Perm()
	}
	if err := WriteFileAtomic(f.PreviousPath(), data, mode); err != nil {
		return fmt.Errorf("refresh-queues: keep the previous file: %w", err)
	}
	if err := WriteFileAtomic(f.Path, out, mode); err != nil {
		return fmt.Errorf("refresh-queues: write %s (unchanged): %w", f.Path, err)
	}
	killpoint.At(killpoint.AfterFileWrite)
	var refreshed, standby []string
	for _, addr := range f.AdminAddrs {
		err := f.Refresh(ctx, addr, f.User)
		if errors.Is(err, rmadmin.ErrStandby) {
			// A standby loads the (shared) file when it becomes active.
			standby = append(standby, addr)
			continue
		}
		if err != nil {
			return f.restore(ctx, data, mode, append(refreshed, addr), fmt.Errorf("refreshQueues on %s: %w", addr, err))
		}
		refreshed = append(refreshed, addr)
	}
	if len(refreshed) == 0 {
		return f.restore(ctx, data, mode, nil, fmt.Errorf("refreshQueues: no active ResourceManager among %v (all standby)", f.AdminAddrs))
	}
	f.logger().Info("capacity-scheduler.xml written and queues refreshed", "file", f.Path, "set", len(set), "unset", len(unset), "refreshed", refreshed, "standby", standby)
	return nil
}

// restore puts the previous file back and refreshes the RMs that may hold
// the new queues; cause is returned, joined with any failure to restore.
func (f *FileRefresher) restore(ctx context.Context, prev []byte, mode os.FileMode, rms []string, cause error) error {
	f.logger().Warn("refresh failed: restoring the previous capacity-scheduler.xml", "file", f.Path, "cause", cause)
	if err := WriteFileAtomic(f.Path, prev, mode); err != nil {
		return errors.Join(cause, fmt.Errorf("RESTORE FAILED: write %s back (the previous copy is %s): %w", f.Path, f.PreviousPath(), err))
	}
	var errs []error
	for _, addr := range rms {
		if err := f.Refresh(ctx, addr, f.User); err != nil && !errors.Is(err, rmadmin.ErrStandby) {
			errs = append(errs, fmt.Errorf("refresh %s after the restore: %w", addr, err))
		}
	}
	if len(errs) > 0 {
		return errors.Join(append([]error{cause}, errs...)...)
	}
	return cause
}

// fileDiffers reports the first capacity or default node-label expression
// on which the file and what the RM runs (live: AnyStore's overlay)
// disagree. (Label expressions too: a kill between the file write and the
// refresh of a plan that only routed a queue left the file ahead of the RM
// unseen; found by TestKillAnywhereFileStore.)
func fileDiffers(file, live schedconf.Conf) (key, fileValue, running string, differs bool) {
	for _, k := range plan.SortedKeys(file) {
		if isCapacityKey(k) && !sameCapacity(file[k], live[k]) {
			return k, file[k], live[k], true
		}
	}
	queues := append(queuePaths(file), queuePaths(live)...)
	slices.Sort(queues)
	for _, q := range slices.Compact(queues) {
		if fv, rv := effectiveLabel(file, q), effectiveLabel(live, q); fv != rv {
			return schedconf.Key(q, labelExpressionProp), fv, rv, true
		}
	}
	return "", "", "", false
}

// recoverOwnWrite puts <file>.sidecar-previous back when the file
// disagrees with what the RM runs and the previous file agrees with it:
// the sidecar wrote the file and no refresh took it (killed before the
// refresh; a refresh that answered but did not load it). The RM runs the
// previous file already, so no refresh is needed. It reports whether it
// restored.
func (f *FileRefresher) recoverOwnWrite(live schedconf.Conf) (bool, error) {
	prevPath := f.PreviousPath()
	prevData, err := os.ReadFile(prevPath)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read %s: %w", prevPath, err)
	}
	prev, err := yarn.CapacitySchedulerConf(prevPath)
	if err != nil {
		return false, err
	}
	if _, _, _, differs := fileDiffers(prev, live); differs {
		return false, nil
	}
	mode := os.FileMode(0o644)
	if st, err := os.Stat(f.Path); err == nil {
		mode = st.Mode().Perm()
	}
	if err := WriteFileAtomic(f.Path, prevData, mode); err != nil {
		return false, fmt.Errorf("restore %s from %s: %w", f.Path, prevPath, err)
	}
	f.logger().Warn("capacity-scheduler.xml held a write of the sidecar that no refresh took: the previous file is back (the RM runs it)", "file", f.Path)
	return true, nil
}

// RecoverInterruptedWrite is recoverOwnWrite for restart reconciliation.
func (f *FileRefresher) RecoverInterruptedWrite(live schedconf.Conf) (bool, error) {
	file, err := yarn.CapacitySchedulerConf(f.Path)
	if err != nil {
		return false, err
	}
	if _, _, _, differs := fileDiffers(file, live); !differs {
		return false, nil
	}
	return f.recoverOwnWrite(live)
}

func (f *FileRefresher) logger() hclog.Logger {
	if f.Log == nil {
		return hclog.NewNullLogger()
	}
	return f.Log
}

// WriteFileAtomic writes b to path through a temp file beside it: fsync,
// rename, directory fsync. A reader (the RM's refresh) sees the old file
// or the new one, never a part.
func WriteFileAtomic(path string, b []byte, mode os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	defer os.Remove(name) // after a successful rename there is nothing to remove
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(name, path); err != nil {
		return err
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}
