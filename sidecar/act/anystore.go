package act

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"math"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/yarn"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// Where the live scheduler configuration came from (Plan.ConfSource).
const (
	SourceSchedulerConf = "scheduler-conf"           // GET /ws/v1/cluster/scheduler-conf (a mutable store)
	SourceScheduler     = "/ws/v1/cluster/scheduler" // rebuilt from the scheduler answer (file store)
	SourceFilePrefix    = "file:"                    // HADOOP_CONF_DIR's capacity-scheduler.xml (file store)
)

// ConfSourcer is implemented by Observers that say where the live
// configuration of their last read came from.
type ConfSourcer interface {
	ConfSource() string
}

// WriteGate is implemented by ConfAPIs that know, before anything is sent,
// that they cannot write the scheduler configuration (a file-store RM with
// no way to act): the applier refuses at once, as on a non-mutable store.
type WriteGate interface {
	CanWrite(ctx context.Context) error
}

// FileWriter acts on a file-store RM: it writes the admin's
// capacity-scheduler.xml and refreshes the RMs' queues
// (act.via: refresh-queues). Nil on AnyStore: read-only there.
type FileWriter interface {
	// Write applies m to the file (only the changed properties) and asks
	// every RM to refresh its queues.
	Write(ctx context.Context, live schedconf.Conf, m schedconf.Mutation) error
}

// errFileStoreNoValidate is the file store's answer to validate: there is
// no endpoint; refreshQueues itself validates, and keeps the old queues when
// the file is invalid.
var errFileStoreNoValidate = errors.New("file store: the RM has no validate endpoint (scheduler-conf/validate answers 400 Configuration change validation only supported by MutableConfScheduler); refreshQueues validates the file and keeps the old queues when it is invalid")

// AnyStore adapts a yarn client to the loop's Observer and the applier's
// ConfAPI on every scheduler configuration store. On a mutable store
// (memory, leveldb, zk, fs) it is YARN. On the file store, where
// scheduler-conf answers 400 (recorded on 3.3.6), the live configuration is
// CapacitySchedulerXML when set (the RM host's file, what a refresh reads),
// else rebuilt from /ws/v1/cluster/scheduler (yarn.ConfFromSchedulerBody);
// its version is a hash of that configuration, so the applier's version
// check still catches another writer; validation is local-only; writes go to
// Writer, or are refused when it is nil.
type AnyStore struct {
	YARN
	CapacitySchedulerXML string
	Writer               FileWriter

	mu        sync.Mutex
	fileStore bool   // the RM answered "not mutable"
	source    string // of the last SchedulerConf
}

var (
	_ Observer    = (*AnyStore)(nil)
	_ ConfAPI     = (*AnyStore)(nil)
	_ ConfSourcer = (*AnyStore)(nil)
	_ WriteGate   = (*AnyStore)(nil)
)

// FileStore reports whether the RM was found to use the file store.
func (a *AnyStore) FileStore() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.fileStore
}

func (a *AnyStore) setSource(fileStore bool, source string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.fileStore = a.fileStore || fileStore
	a.source = source
}

// ConfSource says where the last SchedulerConf read came from.
func (a *AnyStore) ConfSource() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.source
}

// Observe reads a snapshot; on the file store its ConfVersion is the hash
// of the live configuration (scheduler-conf/version answers 400 there).
func (a *AnyStore) Observe(ctx context.Context, now time.Time) (cluster.Snapshot, error) {
	snap, err := a.YARN.Observe(ctx, now)
	if err != nil {
		return snap, err
	}
	if snap.ConfVersion == 0 {
		v, verr := a.ConfVersion(ctx)
		if verr != nil {
			snap.Errors = append(snap.Errors, cluster.LoadError{What: "scheduler configuration version", Endpoint: "/ws/v1/cluster/scheduler", Err: verr.Error()})
		} else {
			snap.ConfVersion = v
		}
	}
	return snap, nil
}

// SchedulerConf reads the live configuration from the first source the
// store allows.
func (a *AnyStore) SchedulerConf(ctx context.Context) (schedconf.Conf, error) {
	if !a.FileStore() {
		c, err := a.YARN.SchedulerConf(ctx)
		if !errors.Is(err, ErrConfNotMutable) {
			if err == nil {
				a.setSource(false, SourceSchedulerConf)
			}
			return c, err
		}
	}
	return a.fileStoreConf(ctx)
}

func (a *AnyStore) fileStoreConf(ctx context.Context) (schedconf.Conf, error) {
	if a.CapacitySchedulerXML != "" {
		c, err := yarn.CapacitySchedulerConf(a.CapacitySchedulerXML)
		if err != nil {
			return nil, fmt.Errorf("file store: %w", err)
		}
		// The file says what a refresh would load; the RM's answer says
		// what runs. Where they disagree on a capacity, the RM's value is
		// the live one (an edit not refreshed yet, or a refresh that did
		// not take): the applier's verify then reads what the RM runs.
		rm, err := a.Client.ConfFromScheduler(ctx)
		if err != nil {
			return nil, fmt.Errorf("file store: read the RM's queues: %w", err)
		}
		a.setSource(true, SourceFilePrefix+a.CapacitySchedulerXML)
		return OverlayRunning(c, rm), nil
	}
	c, err := a.Client.ConfFromScheduler(ctx)
	if err != nil {
		return nil, fmt.Errorf("file store: rebuild the configuration from the scheduler answer: %w", err)
	}
	a.setSource(true, SourceScheduler)
	return c, nil
}

// ConfVersion is scheduler-conf/version, or on the file store a hash of
// the live configuration.
func (a *AnyStore) ConfVersion(ctx context.Context) (int64, error) {
	if !a.FileStore() {
		v, err := a.YARN.ConfVersion(ctx)
		if !errors.Is(err, ErrConfNotMutable) {
			return v, err
		}
		a.setSource(true, a.ConfSource())
	}
	c, err := a.fileStoreConf(ctx)
	if err != nil {
		return 0, err
	}
	return ConfHash(c), nil
}

// ValidateMutation asks the RM; the file store cannot validate (local-only).
func (a *AnyStore) ValidateMutation(ctx context.Context, m schedconf.Mutation) error {
	if a.FileStore() {
		return errFileStoreNoValidate
	}
	err := a.YARN.ValidateMutation(ctx, m)
	if errors.Is(err, ErrConfNotMutable) {
		a.setSource(true, a.ConfSource())
		return errFileStoreNoValidate
	}
	return err
}

// CanWrite refuses on a file store without a Writer.
func (a *AnyStore) CanWrite(context.Context) error {
	if a.FileStore() && a.Writer == nil {
		return fmt.Errorf("%w; or set act.via: refresh-queues (the sidecar writes capacity-scheduler.xml and refreshes the queues), or mode: propose (it shows the change for the admin to apply)", ErrConfNotMutable)
	}
	return nil
}

// UpdateConf applies one mutation: the PUT, or on the file store the
// Writer's file write and refresh.
func (a *AnyStore) UpdateConf(ctx context.Context, m schedconf.Mutation) error {
	if !a.FileStore() {
		return a.YARN.UpdateConf(ctx, m)
	}
	if err := a.CanWrite(ctx); err != nil {
		return err
	}
	live, err := a.fileStoreConf(ctx)
	if err != nil {
		return err
	}
	return a.Writer.Write(ctx, live, m)
}

// ConfHash is a file-store configuration's version: FNV-1a over its sorted
// properties, non-negative. Any change to any property changes it (up to
// hash collisions), which is all the applier's version check needs.
func ConfHash(c schedconf.Conf) int64 {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	h := fnv.New64a()
	for _, k := range keys {
		h.Write([]byte(k))
		h.Write([]byte{0})
		h.Write([]byte(c[k]))
		h.Write([]byte{0})
	}
	return int64(h.Sum64() & (1<<62 - 1))
}

// OverlayRunning returns file with the values running shows in place of
// the file's where the two differ in value (not in spelling: "50" and
// "50.0" agree, so do equal absolute resources), on what the sidecar writes
// and the RM's answer carries: capacities, maximum capacities and each
// queue's default node-label expression. Capacity keys the file lacks stay
// absent: running's defaults are not the admin's. A label expression is
// set explicitly only on a queue whose expression as the RM runs it (its
// own, else its parent's) differs from the file's.
func OverlayRunning(file, running schedconf.Conf) schedconf.Conf {
	out := file.Clone()
	for k, fv := range file {
		if rv, ok := running[k]; ok && isCapacityKey(k) && !sameCapacity(fv, rv) {
			out[k] = rv
		}
	}
	for _, q := range queuePaths(running) {
		// The answer shows each queue's expression as it runs (inherited
		// included) and leaves out an empty one.
		rv := strings.TrimSpace(running[schedconf.Key(q, labelExpressionProp)])
		if effectiveLabel(out, q) != rv {
			out[schedconf.Key(q, labelExpressionProp)] = rv
		}
	}
	return out
}

const labelExpressionProp = "default-node-label-expression"

// effectiveLabel is queue's default node-label expression as a refresh of
// c would run it: its own, else its nearest parent's (the Capacity
// Scheduler inherits an unset one; schedconf.ParseTree does the same).
func effectiveLabel(c schedconf.Conf, queue string) string {
	for q := queue; q != ""; {
		if v, ok := c[schedconf.Key(q, labelExpressionProp)]; ok {
			return strings.TrimSpace(v)
		}
		i := strings.LastIndexByte(q, '.')
		if i < 0 {
			break
		}
		q = q[:i]
	}
	return ""
}

// queuePaths lists c's queues below root, parents before their children
// (from the "queues" keys).
func queuePaths(c schedconf.Conf) []string {
	set := map[string]bool{}
	for k, v := range c {
		parent, ok := strings.CutPrefix(k, schedconf.Prefix)
		if !ok {
			continue
		}
		if parent, ok = strings.CutSuffix(parent, ".queues"); !ok {
			continue
		}
		for _, child := range strings.Split(v, ",") {
			if child = strings.TrimSpace(child); child != "" {
				set[parent+"."+child] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(set))
}

func isCapacityKey(k string) bool {
	return strings.HasSuffix(k, ".capacity") || strings.HasSuffix(k, ".maximum-capacity")
}

func sameCapacity(a, b string) bool {
	if a == b {
		return true
	}
	ca, err1 := schedconf.ParseCapacity(a)
	cb, err2 := schedconf.ParseCapacity(b)
	if err1 != nil || err2 != nil || ca.Mode != cb.Mode {
		return false
	}
	switch ca.Mode {
	case schedconf.ModePercentage:
		return math.Abs(ca.Percent-cb.Percent) < 1e-3
	case schedconf.ModeWeight:
		return math.Abs(ca.Weight-cb.Weight) < 1e-6
	}
	return reflect.DeepEqual(ca.Absolute, cb.Absolute)
}

// RecoverInterruptedWrite lets restart reconciliation put back the file
// of a write no refresh took (a kill between the file write and the
// refresh); see FileRefresher.recoverOwnWrite.
func (a *AnyStore) RecoverInterruptedWrite(ctx context.Context) (string, error) {
	fr, ok := a.Writer.(*FileRefresher)
	if !ok {
		return "", nil
	}
	if _, err := a.YARN.ConfVersion(ctx); !errors.Is(err, ErrConfNotMutable) {
		return "", nil // a mutable store: nothing of the file's
	}
	a.setSource(true, a.ConfSource())
	live, err := a.fileStoreConf(ctx)
	if err != nil {
		return "", err
	}
	restored, err := fr.RecoverInterruptedWrite(live)
	if err != nil || !restored {
		return "", err
	}
	return "capacity-scheduler.xml held the interrupted write, which no RM had refreshed: the previous file was put back", nil
}

// SameValue reports whether two values of a scheduler property are the
// same setting: equal text, or capacities equal in value ("50", "50.0").
func SameValue(a, b string) bool { return a == b || sameCapacity(a, b) }
