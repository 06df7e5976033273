package tcpserve

import (
	"io"
	"net"
	"testing"
)

// TestCloseDropsConnectionsAndWaits: a connection still being served when
// the listener closes is closed under it, and Close returns only after its
// serve goroutine has ended.
func TestCloseDropsConnectionsAndWaits(t *testing.T) {
	started := make(chan struct{})
	ended := false
	l, err := Listen(func(c net.Conn) {
		close(started)
		io.Copy(io.Discard, c) // returns when Close closes c
		ended = true
	})
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", l.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	<-started
	if err := l.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if !ended {
		t.Fatal("Close returned while a connection was still being served")
	}
	if err := l.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := net.Dial("tcp", l.Addr()); err == nil {
		t.Fatal("the listener still accepts after Close")
	}
}
