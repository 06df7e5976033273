// Package tcpserve is the mini cluster's loopback TCP listener for its
// Hadoop IPC endpoints (the NameNode, the RM admin protocol): it serves each
// connection on its own goroutine and, on Close, drops every connection and
// waits for their goroutines, so a test's server never outlives the test.
package tcpserve

import (
	"fmt"
	"net"
	"sync"
)

// Listener serves connections on 127.0.0.1 at a free port until Close.
type Listener struct {
	ln    net.Listener
	serve func(net.Conn)

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

// Listen starts serving; serve runs once per connection, which is closed
// when serve returns.
func Listen(serve func(net.Conn)) (*Listener, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	l := &Listener{ln: ln, serve: serve, conns: map[net.Conn]struct{}{}}
	l.wg.Add(1)
	go l.accept()
	return l, nil
}

// Addr is the host:port clients dial.
func (l *Listener) Addr() string { return l.ln.Addr().String() }

// Close stops listening, drops every connection and waits for their
// goroutines to end.
func (l *Listener) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	err := l.ln.Close()
	for c := range l.conns {
		c.Close()
	}
	l.mu.Unlock()
	l.wg.Wait()
	return err
}

func (l *Listener) accept() {
	defer l.wg.Done()
	for {
		c, err := l.ln.Accept()
		if err != nil {
			return // closed
		}
		l.mu.Lock()
		if l.closed {
			l.mu.Unlock()
			c.Close()
			return
		}
		l.conns[c] = struct{}{}
		l.wg.Add(1)
		l.mu.Unlock()
		go func() {
			defer l.wg.Done()
			defer func() {
				l.mu.Lock()
				delete(l.conns, c)
				l.mu.Unlock()
				c.Close()
			}()
			l.serve(c)
		}()
	}
}
