package ipc

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"
)

// DialFunc opens a TCP connection, as net.Dialer.DialContext does.
type DialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// Conn is one client connection to a NameNode speaking ClientProtocol with
// simple authentication (no SASL). Calls are serialised, as on
// colinmarc/hdfs's connection; a Conn is safe for concurrent use.
type Conn struct {
	addr     string
	proto    Protocol
	h        *Headers
	clientID []byte

	mu     sync.Mutex
	nc     net.Conn
	callID int32
	wbuf   []byte
	rbuf   []byte
	broken error // set when the stream can no longer be trusted
}

// Dial connects to the NameNode at addr as user and sends the connection
// header and context. Like a real NameNode, the server answers nothing to
// the handshake, so a standby is only found out by the first call.
func Dial(ctx context.Context, addr, user string, dial DialFunc) (*Conn, error) {
	return DialProtocol(ctx, NameNode, addr, user, dial)
}

// DialProtocol is Dial for another protocol over the same framing (the
// ResourceManager's admin protocol, RMAdmin).
func DialProtocol(ctx context.Context, p Protocol, addr, user string, dial DialFunc) (*Conn, error) {
	h, err := NewHeaders()
	if err != nil {
		return nil, err
	}
	if user == "" {
		return nil, errors.New("ipc: no user given")
	}
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	nc, err := dial(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("ipc: dial %s %s: %w", p.short(), addr, err)
	}
	// Hadoop's client id: 16 bytes, unique per client (retry cache key).
	id := make([]byte, 16)
	if _, err := rand.Read(id); err != nil {
		nc.Close()
		return nil, fmt.Errorf("ipc: client id: %w", err)
	}
	c := &Conn{addr: addr, proto: p, h: h, clientID: id, nc: nc}
	buf := append([]byte(Magic), Version, 0 /* service class */, AuthNone)
	buf, err = AppendPacket(buf, h.NewRequestHeader(HandshakeCallID, id), h.NewConnectionContextFor(p, user))
	if err != nil {
		nc.Close()
		return nil, err
	}
	if err := c.write(ctx, buf); err != nil {
		nc.Close()
		return nil, fmt.Errorf("ipc: handshake with %s %s: %w", p.short(), addr, err)
	}
	return c, nil
}

// Addr is the NameNode address this connection is to.
func (c *Conn) Addr() string { return c.addr }

// Call invokes a ClientProtocol method and decodes its response into resp.
// A server exception comes back as *RemoteError (the connection stays
// usable); a transport failure or a cancelled ctx breaks the connection, and
// later calls fail at once.
func (c *Conn) Call(ctx context.Context, method string, req, resp proto.Message) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.broken != nil {
		return fmt.Errorf("ipc: %s on %s: connection unusable: %w", method, c.addr, c.broken)
	}
	c.callID++
	id := c.callID
	var err error
	c.wbuf, err = AppendPacket(c.wbuf[:0], c.h.NewRequestHeader(id, c.clientID), c.h.NewMethodHeaderFor(c.proto, method), req)
	if err != nil {
		return fmt.Errorf("ipc: %s: %w", method, err)
	}
	if err := c.write(ctx, c.wbuf); err != nil {
		return c.breakWith(method, err)
	}
	body, err := c.read(ctx)
	if err != nil {
		return c.breakWith(method, err)
	}
	parts, err := SplitPacket(body)
	if err != nil || len(parts) == 0 {
		return c.breakWith(method, fmt.Errorf("malformed response: %v", err))
	}
	rh, err := c.h.ParseResponseHeader(parts[0])
	if err != nil {
		return c.breakWith(method, err)
	}
	if int32(rh.CallID) != id {
		return c.breakWith(method, fmt.Errorf("response for call %d, want %d", int32(rh.CallID), id))
	}
	switch rh.Status {
	case StatusSuccess:
	case StatusFatal:
		c.breakWith(method, fmt.Errorf("fatal %s: %s", rh.ExceptionClass, rh.ErrorMsg))
		fallthrough
	default:
		return &RemoteError{Addr: c.addr, Method: method, Class: rh.ExceptionClass, Message: rh.ErrorMsg}
	}
	if len(parts) < 2 {
		// An empty message encodes as zero bytes, and Hadoop still frames it.
		return c.breakWith(method, errors.New("response without a message"))
	}
	if err := proto.Unmarshal(parts[1], resp); err != nil {
		return fmt.Errorf("ipc: %s on %s: decode %s: %w", method, c.addr, resp.ProtoReflect().Descriptor().FullName(), err)
	}
	return nil
}

// Close closes the connection.
func (c *Conn) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.broken == nil {
		c.broken = net.ErrClosed
	}
	return c.nc.Close()
}

func (c *Conn) breakWith(method string, err error) error {
	if c.broken == nil {
		c.broken = err
		c.nc.Close()
	}
	return fmt.Errorf("ipc: %s on %s: %w", method, c.addr, err)
}

// write sends b, giving up when ctx ends.
func (c *Conn) write(ctx context.Context, b []byte) error {
	defer c.watch(ctx)()
	_, err := c.nc.Write(b)
	return c.ctxErr(ctx, err)
}

// read receives one packet, giving up when ctx ends.
func (c *Conn) read(ctx context.Context) ([]byte, error) {
	defer c.watch(ctx)()
	body, err := ReadPacket(c.nc, c.rbuf)
	if err != nil {
		return nil, c.ctxErr(ctx, err)
	}
	c.rbuf = body[:0]
	return body, nil
}

// watch applies ctx's deadline to the socket and unblocks it when ctx is
// cancelled; the returned func undoes both.
func (c *Conn) watch(ctx context.Context) func() {
	if d, ok := ctx.Deadline(); ok {
		c.nc.SetDeadline(d)
	}
	stop := context.AfterFunc(ctx, func() { c.nc.SetDeadline(time.Unix(1, 0)) })
	return func() {
		stop()
		c.nc.SetDeadline(time.Time{})
	}
}

func (c *Conn) ctxErr(ctx context.Context, err error) error {
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}
