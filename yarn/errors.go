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

// RemoteError is a Hadoop RemoteException body, or a plain-text error body.
type RemoteError struct {
	Method, URL string
	Status      int
	Exception   string // e.g. NotFoundException; "" for plain-text bodies
	Message     string
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
