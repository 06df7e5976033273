package act

import "github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"

// landedWhole: the PUT's answer was lost (reset, timeout, truncated, a
// failover between the PUT and its answer) yet the RM holds exactly the
// new values and its version moved on: the mutation landed as one
// transaction, so it is verified rather than rolled back or re-sent.
// The version is the witness: a PUT is never re-sent to find out.
func landedWhole(live, got, after schedconf.Conf, versionBefore, versionAfter int64) bool {
	return versionAfter > versionBefore && len(diffOn(after, got, after, live)) == 0
}
