// Package killpoint lets the kill -9 harness (testenv/killtest) stop the
// daemon at a named point of a cycle — between the PUT and the verify,
// inside a calibration-history transaction — so that a SIGKILL lands
// exactly there. It is inert unless YARN_SIDECAR_TEST_PAUSE_AT names the
// point: production runs never set it.
package killpoint

import (
	"fmt"
	"os"
)

// Env names the point to pause at.
const Env = "YARN_SIDECAR_TEST_PAUSE_AT"

// The named points, in the order a cycle reaches them.
const (
	StoreWrite  = "store-write"  // inside a calibration-history write transaction, before commit
	BeforePut   = "before-put"   // the intent record is on disk, the PUT not sent
	AfterPut    = "after-put"    // the PUT answered, nothing read back yet
	BeforeAudit = "before-audit" // the apply finished, its audit record not written
)

// AfterFileWrite is reached on the file store (act.via: refresh-queues)
// only: the new capacity-scheduler.xml is on disk, no RM refreshed yet.
// The PUT's points stand for the refresh there: BeforePut before the file
// is written, AfterPut once every RM has refreshed.
const AfterFileWrite = "after-file-write"

// Points lists every point of the mutation-API path, for the harness.
var Points = []string{StoreWrite, BeforePut, AfterPut, BeforeAudit}

// FileStorePoints are the points of the file-store path, in order.
var FileStorePoints = []string{BeforePut, AfterFileWrite, AfterPut, BeforeAudit}

// At blocks forever when the environment names this point, after saying so
// on stderr (the harness waits for that line, then sends SIGKILL).
func At(point string) {
	if os.Getenv(Env) != point {
		return
	}
	fmt.Fprintf(os.Stderr, "yarn-sidecar: paused at kill point %s\n", point)
	select {}
}
