package yarn

import (
	"errors"
	"fmt"
)

// ErrConfNotMutable: the RM's scheduler configuration store is the file
// store, so the scheduler-conf API is off (Hadoop answers 400 "...only
// supported by MutableConfScheduler.").
var ErrConfNotMutable = errors.New("scheduler configuration is not mutable (yarn.scheduler.configuration.store.class=file)")

// ErrTooLarge: a response exceeded the configured size cap.
var ErrTooLarge = errors.New("response exceeds the size cap")

// ErrNoActiveRM: a standby RM answered 307 without a Location ("Can not
// find any active RM. Will retry in next N seconds."), and no other RM
// answered: a failover is under way. Callers wait and do not act.
var ErrNoActiveRM = errors.New("no active ResourceManager (failover under way)")

// RemoteError is a Hadoop RemoteException body, or a plain-text error body.
type RemoteError struct {
	Method, URL string
	Status      int
	Exception   string // e.g. NotFoundException; "" for plain-text bodies
	Message     string
	// Location is the target of a redirect the client did not follow.
	Location string
}

func (e *RemoteError) Error() string {
	if e.Exception != "" {
		return fmt.Sprintf("%s %s: HTTP %d %s: %s", e.Method, e.URL, e.Status, e.Exception, e.Message)
	}
	return fmt.Sprintf("%s %s: HTTP %d: %s", e.Method, e.URL, e.Status, e.Message)
}

// MutationRejectedError: the RM refused a scheduler-conf mutation; Hadoop
// applies a mutation as one transaction, so nothing changed.
type MutationRejectedError struct {
	Status  int
	Message string
}

func (e *MutationRejectedError) Error() string {
	return fmt.Sprintf("scheduler-conf mutation rejected (HTTP %d): %s", e.Status, e.Message)
}
