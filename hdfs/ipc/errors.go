package ipc

import (
	"fmt"
	"os"
)

// Java exception classes a NameNode answers with, which callers act on.
const (
	FileNotFoundException  = "java.io.FileNotFoundException"
	AccessControlException = "org.apache.hadoop.security.AccessControlException"
	StandbyException       = "org.apache.hadoop.ipc.StandbyException"
	RetriableException     = "org.apache.hadoop.ipc.RetriableException"
	NoSuchMethodException  = "org.apache.hadoop.ipc.RpcNoSuchMethodException"
	IOException            = "java.io.IOException"
)

// RemoteError is an exception the NameNode threw for one call. errors.Is
// maps FileNotFoundException to os.ErrNotExist and AccessControlException to
// os.ErrPermission, like colinmarc/hdfs, while keeping the server's message
// (which for a denial names the user, the access and the inode).
type RemoteError struct {
	Addr    string // the NameNode that answered
	Method  string
	Class   string // Java exception class name
	Message string
}

func (e *RemoteError) Error() string {
	msg := e.Message
	if msg == "" {
		msg = "(no message)"
	}
	return fmt.Sprintf("%s on %s: %s: %s", e.Method, e.Addr, e.Class, msg)
}

// Is reports whether the exception means target.
func (e *RemoteError) Is(target error) bool {
	switch target {
	case os.ErrNotExist:
		return e.Class == FileNotFoundException
	case os.ErrPermission:
		return e.Class == AccessControlException
	}
	return false
}

// Standby reports whether the NameNode refused the call because it is the
// standby of an HA pair, so the caller should try the other NameNode.
func (e *RemoteError) Standby() bool { return e.Class == StandbyException }
