package namenode

import (
	"bufio"
	"errors"
	"net"

	"github.com/yarn-sidecar/yarn-sidecar/hdfs/ipc"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// session is one client connection's state after the handshake.
type session struct {
	user string
}

// serve runs one connection: the header, the connection context, then calls
// answered in order until the client closes or a fatal error.
func (srv *Server) serve(c net.Conn) {
	h, err := ipc.NewHeaders()
	if err != nil {
		return
	}
	r := bufio.NewReaderSize(c, 64<<10)
	w := bufio.NewWriterSize(c, 64<<10)
	user, _, ok := ipc.ReadPreamble(r, h, "mini NameNode", func(class, msg string) { srv.fatal(w, h, ^uint32(0), class, msg) })
	if !ok {
		return
	}
	sess := &session{user: user}

	var rbuf, wbuf []byte
	for {
		body, err := ipc.ReadPacket(r, rbuf)
		if err != nil {
			return
		}
		rbuf = body[:0]
		wbuf, err = srv.call(h, sess, body, wbuf[:0])
		if len(wbuf) > 0 {
			if _, werr := w.Write(wbuf); werr != nil {
				return
			}
			if r.Buffered() == 0 {
				// Flush only when no pipelined request is waiting.
				if w.Flush() != nil {
					return
				}
			}
		}
		if err != nil {
			w.Flush()
			return
		}
	}
}

// errClose ends a connection without an error to report.
var errClose = errors.New("close")

// call answers one request packet, appending the response packet to out.
// A non-nil error closes the connection after out is sent.
func (srv *Server) call(h *ipc.Headers, sess *session, body, out []byte) ([]byte, error) {
	parts, err := ipc.SplitPacket(body)
	if err != nil || len(parts) < 2 {
		return srv.appendFatal(out, h, ^uint32(0), ipc.FatalInvalidRPCHeader, "malformed request packet")
	}
	rh, err := h.ParseRequestHeader(parts[0])
	if err != nil {
		return srv.appendFatal(out, h, ^uint32(0), ipc.FatalInvalidRPCHeader, err.Error())
	}
	if rh.Op == 2 { // RPC_CLOSE_CONNECTION
		return out, errClose
	}
	id := uint32(rh.CallID)
	mh, err := h.ParseMethodHeader(parts[1])
	if err != nil {
		return srv.appendFatal(out, h, id, ipc.FatalInvalidRPCHeader, err.Error())
	}
	srv.count(mh.Method)
	fail := func(e *exception, detail int32) ([]byte, error) {
		return ipc.AppendPacket(out, h.NewResponseHeader(ipc.ResponseHeader{
			CallID: id, Status: ipc.StatusError, ExceptionClass: e.class, ErrorMsg: e.msg,
			ErrorDetail: detail, ClientID: rh.ClientID,
		}))
	}
	if mh.Protocol != ipc.ClientProtocol {
		return fail(&exception{"org.apache.hadoop.ipc.RpcNoSuchProtocolException", "Unknown protocol: " + mh.Protocol}, ipc.ErrorNoSuchProtocol)
	}
	md := srv.s.service.Methods().ByName(protoreflect.Name(mh.Method))
	if md == nil {
		return fail(&exception{ipc.NoSuchMethodException, "Unknown method " + mh.Method + " called on " + ipc.ClientProtocol + " protocol."}, ipc.ErrorNoSuchMethod)
	}
	handler := srv.handler(mh.Method)
	if handler == nil {
		// A real ClientProtocol method this stand-in does not serve (writes,
		// snapshots...): the NameNode would run it, so say plainly we don't.
		return fail(&exception{"java.lang.UnsupportedOperationException", "mini NameNode does not implement " + mh.Method}, ipc.ErrorApplication)
	}
	if srv.opts.Standby {
		return fail(&exception{ipc.StandbyException, "Operation category READ is not supported in state standby. Visit https://s.apache.org/sbnn-error"}, ipc.ErrorApplication)
	}
	reqType, err1 := protoregistry.GlobalTypes.FindMessageByName(md.Input().FullName())
	respType, err2 := protoregistry.GlobalTypes.FindMessageByName(md.Output().FullName())
	if err1 != nil || err2 != nil {
		return fail(&exception{"java.lang.UnsupportedOperationException", "no registered type for " + mh.Method}, ipc.ErrorApplication)
	}
	req := reqType.New()
	if len(parts) > 2 {
		if err := proto.Unmarshal(parts[2], req.Interface()); err != nil {
			return srv.appendFatal(out, h, id, ipc.FatalDeserializing, err.Error())
		}
	}
	resp := respType.New()
	if e := handler(sess, req, resp); e != nil {
		return fail(e, ipc.ErrorApplication)
	}
	return ipc.AppendPacket(out, h.NewResponseHeader(ipc.ResponseHeader{
		CallID: id, Status: ipc.StatusSuccess, ClientID: rh.ClientID,
	}), resp.Interface())
}

func (srv *Server) appendFatal(out []byte, h *ipc.Headers, id uint32, detail int32, msg string) ([]byte, error) {
	out, err := ipc.AppendPacket(out, h.NewResponseHeader(ipc.ResponseHeader{
		CallID: id, Status: ipc.StatusFatal, ExceptionClass: "org.apache.hadoop.ipc.RpcServerException",
		ErrorMsg: msg, ErrorDetail: detail,
	}))
	if err == nil {
		err = errClose
	}
	return out, err
}

func (srv *Server) fatal(w *bufio.Writer, h *ipc.Headers, id uint32, class, msg string) {
	out, err := ipc.AppendPacket(nil, h.NewResponseHeader(ipc.ResponseHeader{
		CallID: id, Status: ipc.StatusFatal, ExceptionClass: class, ErrorMsg: msg, ErrorDetail: ipc.FatalUnknown,
	}))
	if err == nil {
		w.Write(out)
		w.Flush()
	}
}
