package rmadmin

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"sync"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/yarn-sidecar/yarn-sidecar/hdfs/ipc"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/tcpserve"
)

// YarnException is the class of a refused refresh (recorded).
const YarnException = "org.apache.hadoop.yarn.exceptions.YarnException"

// ErrStandby, returned by a RefreshFunc, answers as a standby RM does:
// StandbyException (AdminService.checkRMStatus; the message is the mini
// cluster's, not recorded).
var ErrStandby = errors.New("standby")

// RefreshFunc re-reads the queues as the RM does on refreshQueues; its
// error is the reason that follows "Failed to re-init queues : ".
type RefreshFunc func(user string) error

// Server is a running mini RM admin endpoint.
type Server struct {
	refresh RefreshFunc
	ln      *tcpserve.Listener

	mu    sync.Mutex
	calls map[string]int
}

// Start serves on 127.0.0.1 at a free port until Close.
func Start(refresh RefreshFunc) (*Server, error) {
	if refresh == nil {
		return nil, errors.New("rmadmin: nil refresh")
	}
	srv := &Server{refresh: refresh, calls: map[string]int{}}
	ln, err := tcpserve.Listen(srv.serve)
	if err != nil {
		return nil, fmt.Errorf("rmadmin: %w", err)
	}
	srv.ln = ln
	return srv, nil
}

// Addr is the host:port clients dial (yarn.resourcemanager.admin.address).
func (srv *Server) Addr() string { return srv.ln.Addr() }

// Calls returns how many times method was called, refusals included.
func (srv *Server) Calls(method string) int {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	return srv.calls[method]
}

// Close stops listening, drops every connection and waits for them.
func (srv *Server) Close() error { return srv.ln.Close() }

// serve runs one connection: header, connection context, then calls until
// the client closes (the RM keeps the connection open; recorded).
func (srv *Server) serve(c net.Conn) {
	h, err := ipc.NewHeaders()
	if err != nil {
		return
	}
	r := bufio.NewReader(c)
	w := bufio.NewWriter(c)
	user, protocol, ok := ipc.ReadPreamble(r, h, "mini RM admin endpoint", func(class, msg string) { srv.fatal(w, h, class, msg) })
	if !ok {
		return
	}
	for {
		body, err := ipc.ReadPacket(r, nil)
		if err != nil {
			return
		}
		out, err := srv.call(h, user, protocol, body)
		if len(out) > 0 {
			if _, werr := w.Write(out); werr != nil || w.Flush() != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

var errClose = errors.New("close")

// call answers one request packet.
func (srv *Server) call(h *ipc.Headers, user, ctxProtocol string, body []byte) ([]byte, error) {
	parts, err := ipc.SplitPacket(body)
	if err != nil || len(parts) < 2 {
		return appendFatal(h, ^uint32(0), ipc.FatalInvalidRPCHeader, "malformed request packet")
	}
	rh, err := h.ParseRequestHeader(parts[0])
	if err != nil {
		return appendFatal(h, ^uint32(0), ipc.FatalInvalidRPCHeader, err.Error())
	}
	if rh.Op == 2 { // RPC_CLOSE_CONNECTION
		return nil, errClose
	}
	id := uint32(rh.CallID)
	mh, err := h.ParseMethodHeader(parts[1])
	if err != nil {
		return appendFatal(h, id, ipc.FatalInvalidRPCHeader, err.Error())
	}
	srv.mu.Lock()
	srv.calls[mh.Method]++
	srv.mu.Unlock()
	fail := func(class, msg string, detail int32) ([]byte, error) {
		return ipc.AppendPacket(nil, h.NewResponseHeader(ipc.ResponseHeader{
			CallID: id, Status: ipc.StatusError, ExceptionClass: class, ErrorMsg: msg, ErrorDetail: detail, ClientID: rh.ClientID}))
	}
	if mh.Protocol != ipc.RMAdmin.Name || ctxProtocol != ipc.RMAdmin.Name {
		return fail("org.apache.hadoop.ipc.RpcNoSuchProtocolException", "Unknown protocol: "+mh.Protocol, ipc.ErrorNoSuchProtocol)
	}
	if mh.Method != "refreshQueues" {
		return fail(ipc.NoSuchMethodException, "Unknown method "+mh.Method+" called on "+ipc.RMAdmin.Name+" protocol (the mini RM serves refreshQueues only).", ipc.ErrorNoSuchMethod)
	}
	// RefreshQueuesRequestProto has no fields: any bytes are unknown
	// fields, which protobuf keeps; an unparsable body is fatal.
	if len(parts) > 2 {
		if err := proto.Unmarshal(parts[2], &emptypb.Empty{}); err != nil {
			return appendFatal(h, id, ipc.FatalDeserializing, err.Error())
		}
	}
	if err := srv.refresh(user); errors.Is(err, ErrStandby) {
		return fail(ipc.StandbyException, "ResourceManager is not Active! (mini cluster: a standby RM)", ipc.ErrorApplication)
	} else if err != nil {
		return fail(YarnException, RefusedMessage(err.Error()), ipc.ErrorApplication)
	}
	return ipc.AppendPacket(nil, h.NewResponseHeader(ipc.ResponseHeader{CallID: id, Status: ipc.StatusSuccess, ClientID: rh.ClientID}), &emptypb.Empty{})
}

// RefusedMessage is the errorMsg of a refused refresh: the recorded first
// line, then a stand-in for the RM's server stack.
func RefusedMessage(why string) string {
	return "java.io.IOException: Failed to re-init queues : " + why +
		"\n\tat org.apache.hadoop.yarn.server.resourcemanager.AdminService.refreshQueues(mini cluster: no real stack)\n"
}

func appendFatal(h *ipc.Headers, id uint32, detail int32, msg string) ([]byte, error) {
	out, err := ipc.AppendPacket(nil, h.NewResponseHeader(ipc.ResponseHeader{
		CallID: id, Status: ipc.StatusFatal, ExceptionClass: "org.apache.hadoop.ipc.RpcServerException", ErrorMsg: msg, ErrorDetail: detail}))
	if err == nil {
		err = errClose
	}
	return out, err
}

func (srv *Server) fatal(w *bufio.Writer, h *ipc.Headers, class, msg string) {
	out, err := ipc.AppendPacket(nil, h.NewResponseHeader(ipc.ResponseHeader{
		CallID: ^uint32(0), Status: ipc.StatusFatal, ExceptionClass: class, ErrorMsg: msg, ErrorDetail: ipc.FatalUnknown}))
	if err == nil {
		w.Write(out)
		w.Flush()
	}
}
