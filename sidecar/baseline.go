package sidecar

import (
	"sort"
	"strings"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// The admin's baseline without a first-seen file. The guarantee bands are
// relative to what the admin configured (FirstSeen). When the first-seen
// file is missing (deleted, or a state directory restored without it) but
// the audit log records the sidecar's writes, the live configuration is
// not the admin's: it holds the sidecar's values. The audit log knows what
// each property held before the sidecar first wrote it.

// AdminConf is the admin's configuration as the audit log tells it: the
// live configuration with every property the sidecar wrote (applied or
// recovered records) put back to its value before the sidecar's first
// write ("" = unset: removed), or to the value another writer set, as a
// restart's reconciliation recorded it (changed-outside). A property whose
// live value is not what the log says YARN holds — someone else set it
// since — keeps its live value: that one is the admin's. restored and
// changedSince list those properties (sorted).
func AdminConf(live schedconf.Conf, entries []act.AuditEntry) (admin schedconf.Conf, restored, changedSince []string) {
	first := map[string]string{} // the admin's value: before the sidecar's first write
	last := map[string]string{}  // what YARN held after the last record
	for _, e := range entries {
		if e.Mode != act.ModeApply {
			continue
		}
		switch e.Result {
		case act.ResultApplied, act.ResultRecovered:
			for k, after := range e.After {
				if !strings.HasPrefix(k, schedconf.Prefix) {
					continue // a node's labels (label records), not the scheduler's configuration
				}
				if _, ok := first[k]; !ok {
					first[k] = e.Before[k]
				}
				last[k] = after
			}
		case act.ResultChangedOutside:
			// Another writer (the admin) set these at a restart's
			// reconciliation: that value is the admin's from then on.
			for k, live := range e.After {
				if !strings.HasPrefix(k, schedconf.Prefix) {
					continue
				}
				first[k], last[k] = live, live
			}
		}
	}
	admin = live.Clone()
	for k, before := range first {
		if live[k] != last[k] {
			changedSince = append(changedSince, k)
			continue
		}
		if before == "" {
			delete(admin, k)
		} else {
			admin[k] = before
		}
		restored = append(restored, k)
	}
	sort.Strings(restored)
	sort.Strings(changedSince)
	return admin, restored, changedSince
}
