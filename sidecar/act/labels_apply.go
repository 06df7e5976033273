package act

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
	"github.com/yarn-sidecar/yarn-sidecar/yarn"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// NodeLabelAPI is what the applier needs to lay out partitions; the yarn
// client satisfies it.
type NodeLabelAPI interface {
	NodeLabels(ctx context.Context) ([]yarn.Label, error)
	AddNodeLabels(ctx context.Context, labels []yarn.Label) error
	RemoveNodeLabels(ctx context.Context, names []string) error
	ReplaceNodeLabels(ctx context.Context, nodeToLabel map[string]string) error
	// NodePartitions is every node's label ("" = default partition).
	NodePartitions(ctx context.Context) (map[string]string, error)
}

var _ NodeLabelAPI = (*yarn.Client)(nil)

// ApplyLabels puts a label change in place: refuse one that strands the
// default partition → (dry-run stops here) → ask the rate limit whether
// the queues' access may be written now, else write nothing (deferred) →
// add the new labels → relabel the nodes → read both back → on an error
// or a difference, put the nodes' old labels back and remove the labels
// it added → then, in one scheduler-conf mutation through Apply, give the
// chosen queues access, and if that does not apply, take the labels back.
// Each step is one audit line. A real RM answers 200 to a label body it
// cannot read and changes nothing; only the read-back tells.
func (a *Applier) ApplyLabels(ctx context.Context, api NodeLabelAPI, ch LabelChange) (Result, error) {
	if ch.Empty() {
		return ResultNoChange, nil
	}
	a.Cycle++
	log := a.logger()
	entry := AuditEntry{Time: a.now(), Cycle: a.Cycle, Mode: a.Mode, User: a.User, Reasons: ch.Reasons,
		Before: map[string]string{}, After: map[string]string{}, Calibrations: ch.Calibrations}
	// The queues' access to new labels is a scheduler-conf mutation the
	// rate limit may hold back; asked only after the labels were written,
	// it left them written without access (on the mini cluster two queues
	// were then routed to a partition where nobody had capacity, and their
	// apps waited forever). So the rate limit is asked first, and the
	// labels go back if the access is not granted.
	var grant func() (Result, error)
	if len(ch.Grants) > 0 && !a.Mode.RecordsOnly() {
		probe, err := a.grantPlan(ctx, ch)
		if err != nil {
			return ResultFailed, err
		}
		if ok, why := a.Rate.Allow(planTime(probe, a.now()), probe); !ok {
			log.Info("node labels deferred: the access they need would be", "reason", why)
			return ResultDeferred, nil
		}
		grant = func() (Result, error) { return a.grantLabels(ctx, api, probe) }
	}
	res, undo, err := a.applyLabels(ctx, api, ch, &entry)
	err = a.auditLabels(entry, res, err)
	if err != nil || res != ResultApplied || grant == nil {
		return res, err
	}
	if gres, gerr := grant(); gres != ResultApplied {
		if gerr == nil {
			gerr = fmt.Errorf("%s", gres)
		}
		// The labels go back: written without the access they were for,
		// they would be half a change. Its own audit line says so.
		a.Cycle++
		back := AuditEntry{Time: a.now(), Cycle: a.Cycle, Mode: a.Mode, User: a.User, Reasons: ch.Reasons,
			Before: entry.After, After: entry.Before}
		res, err = undo(fmt.Errorf("grant the queues access: %w", gerr))
		return res, a.auditLabels(back, res, err)
	}
	return ResultApplied, nil
}

// auditLabels appends a label write's audit line and logs a failure.
func (a *Applier) auditLabels(entry AuditEntry, res Result, err error) error {
	entry.Result = res
	if err != nil {
		entry.Error = err.Error()
		a.logger().Error("node labels not applied", "result", res, "error", err)
	}
	if a.Audit != nil {
		if aerr := a.Audit.Append(entry); aerr != nil {
			err = errors.Join(err, fmt.Errorf("audit log: %w", aerr))
		}
	}
	return err
}

// nodeKey names a node's label in an audit record's before/after.
func NodeKey(id string) string { return "node-label:" + id }

// applyLabels writes the labels and the nodes' and reads them back; a
// failure puts the nodes' old labels back and removes the labels added.
// undo does the same later (nil until something was written).
func (a *Applier) applyLabels(ctx context.Context, api NodeLabelAPI, ch LabelChange, entry *AuditEntry) (Result, func(error) (Result, error), error) {
	before, err := api.NodePartitions(ctx)
	if err != nil {
		return ResultFailed, nil, fmt.Errorf("read node partitions: %w", err)
	}
	labels, err := api.NodeLabels(ctx)
	if err != nil {
		return ResultFailed, nil, fmt.Errorf("read node labels: %w", err)
	}
	for _, l := range ch.Add {
		entry.After["add-node-label:"+l.Name] = fmt.Sprintf("exclusive=%v", l.Exclusive)
	}
	for id, l := range ch.Nodes {
		cur, ok := before[id]
		if !ok {
			return ResultRejected, nil, &RejectedError{Stage: "local", Err: fmt.Errorf("node %s is not in the cluster", id)}
		}
		entry.Before[NodeKey(id)], entry.After[NodeKey(id)] = cur, l
	}
	check := StrandCheck
	if ch.Lend {
		check = LendCheck
		if len(ch.Add) > 0 || len(ch.Grants) > 0 {
			return ResultRejected, nil, &RejectedError{Stage: "local", Err: fmt.Errorf("a calibration lend adds no label and grants no access")}
		}
	}
	if err := check(before, ch.Nodes); err != nil {
		return ResultRejected, nil, &RejectedError{Stage: "local", Err: err}
	}
	if a.Mode.RecordsOnly() {
		return ResultDryRun, nil, nil
	}

	have := map[string]bool{}
	for _, l := range labels {
		have[l.Name] = true
	}
	var added []string
	var toAdd []yarn.Label
	for _, l := range ch.Add {
		if !have[l.Name] {
			toAdd = append(toAdd, l)
			added = append(added, l.Name)
		}
	}
	undo := func(cause error) (Result, error) {
		wctx, cancel := a.writeContext(ctx)
		defer cancel()
		restore := map[string]string{}
		for id := range ch.Nodes {
			restore[id] = before[id]
		}
		rerr := api.ReplaceNodeLabels(wctx, restore)
		if rerr == nil && len(added) > 0 {
			rerr = api.RemoveNodeLabels(wctx, added)
		}
		if rerr == nil {
			rerr = verifyNodes(wctx, api, restore, nil)
		}
		if rerr != nil {
			return ResultFailed, &RollbackError{Cause: cause, Err: rerr}
		}
		return ResultRolledBack, cause
	}
	wctx, cancel := a.writeContext(ctx)
	defer cancel()
	if len(toAdd) > 0 {
		if err := api.AddNodeLabels(wctx, toAdd); err != nil {
			res, err := undo(fmt.Errorf("add node labels: %w", err))
			return res, nil, err
		}
	}
	if err := api.ReplaceNodeLabels(wctx, ch.Nodes); err != nil {
		res, err := undo(fmt.Errorf("replace node labels: %w", err))
		return res, nil, err
	}
	if err := verifyNodes(wctx, api, ch.Nodes, added); err != nil {
		res, err := undo(err)
		return res, nil, err
	}
	return ResultApplied, undo, nil
}

// verifyNodes reads back the labels and every node's partition.
func verifyNodes(ctx context.Context, api NodeLabelAPI, want map[string]string, labels []string) error {
	got, err := api.NodePartitions(ctx)
	if err != nil {
		return fmt.Errorf("read back node partitions: %w", err)
	}
	var bad []string
	for id, l := range want {
		if got[id] != l {
			bad = append(bad, fmt.Sprintf("%s: want %q, got %q", id, l, got[id]))
		}
	}
	if len(labels) > 0 {
		have, err := api.NodeLabels(ctx)
		if err != nil {
			return fmt.Errorf("read back node labels: %w", err)
		}
		names := map[string]bool{}
		for _, l := range have {
			names[l.Name] = true
		}
		for _, l := range labels {
			if !names[l] {
				bad = append(bad, "label "+l+" missing")
			}
		}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		return &VerifyError{Mismatches: bad}
	}
	return nil
}

// strandCheck refuses a layout that leaves the default partition without
// a node (every app whose requests carry no label would wait forever) or
// that moves a label off a node (a running app asking for it could be left
// with none; the layout only labels unlabelled nodes).
func StrandCheck(before, next map[string]string) error {
	defaults := 0
	for id, l := range before {
		if nl, ok := next[id]; ok {
			if l != "" && nl != l {
				return fmt.Errorf("node %s carries label %s; the sidecar does not move labels off nodes", id, l)
			}
			l = nl
		}
		if l == "" {
			defaults++
		}
	}
	if defaults == 0 {
		return fmt.Errorf("the layout would leave the default partition with no node")
	}
	return nil
}

// LendCheck refuses a calibration lend that is not one node moved between
// its label and the default partition (the replay strategy's lend,
// sidecar/decide/step_replay_lend.go, which lends only a node of a partition no
// queue is homed on and nothing runs in), or that adds labels.
func LendCheck(before, next map[string]string) error {
	if len(next) != 1 {
		return fmt.Errorf("a calibration lend moves one node, not %d", len(next))
	}
	for id, l := range next {
		if (before[id] == "") == (l == "") {
			return fmt.Errorf("a calibration lend moves node %s between a label and the default partition, not from %q to %q", id, before[id], l)
		}
	}
	return nil
}

// grantLabels gives each new label's queues access, as one mutation
// through Apply (validation, version check, verify, rollback, audit).
func (a *Applier) grantLabels(ctx context.Context, api NodeLabelAPI, pl *plan.Plan) (Result, error) {
	// Local validation checks labels against the cluster's: read them now
	// that the new ones exist.
	labels, err := api.NodeLabels(ctx)
	if err != nil {
		return ResultFailed, fmt.Errorf("labels applied; read node labels to grant access: %w", err)
	}
	a.Labels = a.Labels[:0:0]
	for _, l := range labels {
		a.Labels = append(a.Labels, l.Name)
	}
	out, err := a.Apply(ctx, pl)
	return out.Result, err
}

// grantPlan is the mutation that gives each new label's queues access, on
// the live scheduler-conf.
func (a *Applier) grantPlan(ctx context.Context, ch LabelChange) (*plan.Plan, error) {
	base, err := a.API.SchedulerConf(ctx)
	if err != nil {
		return nil, fmt.Errorf("read scheduler-conf to grant access: %w", err)
	}
	version, err := a.API.ConfVersion(ctx)
	if err != nil {
		return nil, fmt.Errorf("read scheduler-conf version: %w", err)
	}
	desired := base
	names := make([]string, 0, len(ch.Grants))
	for l := range ch.Grants {
		names = append(names, l)
	}
	sort.Strings(names)
	for _, l := range names {
		if desired, err = GrantLabelAccess(desired, l, ch.Grants[l]); err != nil {
			return nil, err
		}
	}
	m := schedconf.Diff(base, desired)
	at := ch.Time
	if at.IsZero() {
		at = a.now()
	}
	pl := &plan.Plan{Time: at, ConfVersion: version, Mutation: m, Base: base, Desired: desired, Reasons: ch.Reasons}
	before, after := changedProps(base, desired)
	for k := range after {
		pl.Changes = append(pl.Changes, plan.Change{Property: k, From: before[k], To: after[k], Reason: "access to a new partition"})
	}
	sort.Slice(pl.Changes, func(i, j int) bool { return pl.Changes[i].Property < pl.Changes[j].Property })
	return pl, nil
}
