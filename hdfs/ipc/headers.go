package ipc

import (
	"fmt"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Status is an RpcResponseHeaderProto status.
type Status int32

// Response statuses (RpcHeader.proto RpcStatusProto).
const (
	StatusSuccess Status = 0
	StatusError   Status = 1 // the call failed; the connection stays open
	StatusFatal   Status = 2 // the connection is closed
)

// Error details (RpcHeader.proto RpcErrorCodeProto) this module sends or
// checks.
const (
	ErrorApplication      int32 = 1  // the method threw an exception
	ErrorNoSuchMethod     int32 = 2  // the protocol has no such method
	ErrorNoSuchProtocol   int32 = 3  // the server does not serve the protocol
	FatalUnknown          int32 = 10 // a fatal error of no other kind
	FatalInvalidRPCHeader int32 = 12 // the request headers did not parse
	FatalDeserializing    int32 = 13 // the request did not parse
)

// RequestHeader is what the server needs from an RpcRequestHeaderProto.
type RequestHeader struct {
	CallID   int32
	ClientID []byte
	// Op is the RpcOp: 0 final packet, 2 close connection.
	Op int32
}

// MethodHeader is a RequestHeaderProto: which method of which protocol.
type MethodHeader struct {
	Method   string
	Protocol string
	Version  uint64
}

// ResponseHeader is an RpcResponseHeaderProto.
type ResponseHeader struct {
	CallID         uint32
	Status         Status
	ExceptionClass string
	ErrorMsg       string
	ErrorDetail    int32
	ClientID       []byte
}

// Headers builds and parses the IPC header messages, resolved once from the
// registry.
type Headers struct {
	req                                        protoreflect.MessageType
	reqKind, reqOp, reqCallID, reqClientID     protoreflect.FieldDescriptor
	reqRetry                                   protoreflect.FieldDescriptor
	kindProtobuf                               protoreflect.EnumNumber
	meth                                       protoreflect.MessageType
	methName, methProtocol, methVersion        protoreflect.FieldDescriptor
	ctx                                        protoreflect.MessageType
	ctxUser, ctxProtocol                       protoreflect.FieldDescriptor
	user                                       protoreflect.MessageType
	userEffective, userReal                    protoreflect.FieldDescriptor
	resp                                       protoreflect.MessageType
	respCallID, respStatus, respClass, respMsg protoreflect.FieldDescriptor
	respDetail, respClientID, respVersion      protoreflect.FieldDescriptor
	respRetry                                  protoreflect.FieldDescriptor
}

// NewHeaders resolves the header message types from the registry.
func NewHeaders() (*Headers, error) {
	var l Lookup
	h := &Headers{}
	h.req = l.Message("hadoop.common.RpcRequestHeaderProto")
	d := desc(h.req)
	h.reqKind = l.Field(d, "rpcKind")
	h.reqOp = l.Field(d, "rpcOp")
	h.reqCallID = l.Field(d, "callId")
	h.reqClientID = l.Field(d, "clientId")
	h.reqRetry = l.Field(d, "retryCount")
	h.kindProtobuf = l.Enum(h.reqKind, "RPC_PROTOCOL_BUFFER")

	h.meth = l.Message("hadoop.common.RequestHeaderProto")
	d = desc(h.meth)
	h.methName = l.Field(d, "methodName")
	h.methProtocol = l.Field(d, "declaringClassProtocolName")
	h.methVersion = l.Field(d, "clientProtocolVersion")

	h.ctx = l.Message("hadoop.common.IpcConnectionContextProto")
	d = desc(h.ctx)
	h.ctxUser = l.Field(d, "userInfo")
	h.ctxProtocol = l.Field(d, "protocol")
	h.user = l.Message("hadoop.common.UserInformationProto")
	d = desc(h.user)
	h.userEffective = l.Field(d, "effectiveUser")
	h.userReal = l.Field(d, "realUser")

	h.resp = l.Message("hadoop.common.RpcResponseHeaderProto")
	d = desc(h.resp)
	h.respCallID = l.Field(d, "callId")
	h.respStatus = l.Field(d, "status")
	h.respClass = l.Field(d, "exceptionClassName")
	h.respMsg = l.Field(d, "errorMsg")
	h.respDetail = l.Field(d, "errorDetail")
	h.respClientID = l.Field(d, "clientId")
	h.respVersion = l.Field(d, "serverIpcVersionNum")
	h.respRetry = l.Field(d, "retryCount")
	if err := l.Err(); err != nil {
		return nil, err
	}
	return h, nil
}

// NewRequestHeader builds the RpcRequestHeaderProto of one call.
func (h *Headers) NewRequestHeader(callID int32, clientID []byte) proto.Message {
	m := h.req.New()
	m.Set(h.reqKind, protoreflect.ValueOfEnum(h.kindProtobuf))
	m.Set(h.reqOp, protoreflect.ValueOfEnum(0)) // RPC_FINAL_PACKET
	m.Set(h.reqCallID, protoreflect.ValueOfInt32(callID))
	m.Set(h.reqClientID, protoreflect.ValueOfBytes(clientID))
	return m.Interface()
}

// NewMethodHeader builds the RequestHeaderProto naming a ClientProtocol method.
func (h *Headers) NewMethodHeader(method string) proto.Message {
	return h.NewMethodHeaderFor(NameNode, method)
}

// NewMethodHeaderFor builds the RequestHeaderProto naming a method of p.
func (h *Headers) NewMethodHeaderFor(p Protocol, method string) proto.Message {
	m := h.meth.New()
	m.Set(h.methName, protoreflect.ValueOfString(method))
	m.Set(h.methProtocol, protoreflect.ValueOfString(p.Name))
	m.Set(h.methVersion, protoreflect.ValueOfUint64(p.Version))
	return m.Interface()
}

// NewConnectionContext builds the IpcConnectionContextProto sent once per
// connection: who the caller is and which protocol it speaks.
func (h *Headers) NewConnectionContext(user string) proto.Message {
	return h.NewConnectionContextFor(NameNode, user)
}

// NewConnectionContextFor is NewConnectionContext for protocol p.
func (h *Headers) NewConnectionContextFor(p Protocol, user string) proto.Message {
	u := h.user.New()
	u.Set(h.userEffective, protoreflect.ValueOfString(user))
	m := h.ctx.New()
	m.Set(h.ctxUser, protoreflect.ValueOfMessage(u))
	m.Set(h.ctxProtocol, protoreflect.ValueOfString(p.Name))
	return m.Interface()
}

// NewResponseHeader builds an RpcResponseHeaderProto.
func (h *Headers) NewResponseHeader(r ResponseHeader) proto.Message {
	m := h.resp.New()
	m.Set(h.respCallID, protoreflect.ValueOfUint32(r.CallID))
	m.Set(h.respStatus, protoreflect.ValueOfEnum(protoreflect.EnumNumber(r.Status)))
	m.Set(h.respVersion, protoreflect.ValueOfUint32(uint32(Version)))
	if r.ExceptionClass != "" {
		m.Set(h.respClass, protoreflect.ValueOfString(r.ExceptionClass))
	}
	if r.ErrorMsg != "" {
		m.Set(h.respMsg, protoreflect.ValueOfString(r.ErrorMsg))
	}
	if r.ErrorDetail != 0 {
		m.Set(h.respDetail, protoreflect.ValueOfEnum(protoreflect.EnumNumber(r.ErrorDetail)))
	}
	if r.ClientID != nil {
		m.Set(h.respClientID, protoreflect.ValueOfBytes(r.ClientID))
	}
	return m.Interface()
}

// ParseRequestHeader decodes an RpcRequestHeaderProto.
func (h *Headers) ParseRequestHeader(b []byte) (RequestHeader, error) {
	m := h.req.New()
	if err := proto.Unmarshal(b, m.Interface()); err != nil {
		return RequestHeader{}, fmt.Errorf("ipc: RpcRequestHeaderProto: %w", err)
	}
	return RequestHeader{
		CallID:   int32(m.Get(h.reqCallID).Int()),
		ClientID: m.Get(h.reqClientID).Bytes(),
		Op:       int32(m.Get(h.reqOp).Enum()),
	}, nil
}

// ParseMethodHeader decodes a RequestHeaderProto.
func (h *Headers) ParseMethodHeader(b []byte) (MethodHeader, error) {
	m := h.meth.New()
	if err := proto.Unmarshal(b, m.Interface()); err != nil {
		return MethodHeader{}, fmt.Errorf("ipc: RequestHeaderProto: %w", err)
	}
	return MethodHeader{
		Method:   m.Get(h.methName).String(),
		Protocol: m.Get(h.methProtocol).String(),
		Version:  m.Get(h.methVersion).Uint(),
	}, nil
}

// ParseConnectionContext decodes an IpcConnectionContextProto into the
// effective user and the protocol.
func (h *Headers) ParseConnectionContext(b []byte) (user, protocol string, err error) {
	m := h.ctx.New()
	if err := proto.Unmarshal(b, m.Interface()); err != nil {
		return "", "", fmt.Errorf("ipc: IpcConnectionContextProto: %w", err)
	}
	u := m.Get(h.ctxUser).Message()
	return u.Get(h.userEffective).String(), m.Get(h.ctxProtocol).String(), nil
}

// ParseResponseHeader decodes an RpcResponseHeaderProto.
func (h *Headers) ParseResponseHeader(b []byte) (ResponseHeader, error) {
	m := h.resp.New()
	if err := proto.Unmarshal(b, m.Interface()); err != nil {
		return ResponseHeader{}, fmt.Errorf("ipc: RpcResponseHeaderProto: %w", err)
	}
	r := ResponseHeader{
		CallID:         uint32(m.Get(h.respCallID).Uint()),
		Status:         Status(m.Get(h.respStatus).Enum()),
		ExceptionClass: m.Get(h.respClass).String(),
		ErrorMsg:       m.Get(h.respMsg).String(),
		ClientID:       m.Get(h.respClientID).Bytes(),
	}
	// RpcErrorCodeProto has no zero value, so an unset field would read as
	// its first value (ERROR_APPLICATION); keep 0 for "none".
	if m.Has(h.respDetail) {
		r.ErrorDetail = int32(m.Get(h.respDetail).Enum())
	}
	return r, nil
}
