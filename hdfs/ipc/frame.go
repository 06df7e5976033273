package ipc

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"google.golang.org/protobuf/proto"
)

// Connection-header and protocol constants (ipc/Server.java, RpcConstants.java,
// ClientNamenodeProtocolPB).
const (
	// Magic opens every connection.
	Magic = "hrpc"
	// Version is the IPC version Hadoop 2 and 3 speak.
	Version byte = 9
	// AuthNone is the auth-protocol byte of a connection without SASL
	// (hadoop.security.authentication=simple).
	AuthNone byte = 0
	// AuthSASL is the auth-protocol byte of a SASL (e.g. Kerberos) connection.
	AuthSASL byte = 0xdf
	// HandshakeCallID is the call id of the connection context packet.
	HandshakeCallID int32 = -3
	// ClientProtocol is the protocol name of the NameNode's client RPC.
	ClientProtocol = "org.apache.hadoop.hdfs.protocol.ClientProtocol"
	// ClientProtocolVersion is the version every client sends for it.
	ClientProtocolVersion uint64 = 1
	// MaxPacket caps a packet's length, as Hadoop's ipc.maximum.data.length
	// and ipc.maximum.response.length (both 128 MiB by default) do.
	MaxPacket = 128 << 20
)

// Protocol is an RPC protocol a connection speaks: its name in the
// connection context and method headers, and the client version sent.
type Protocol struct {
	Name    string
	Version uint64
}

var (
	// NameNode is the NameNode's ClientProtocol.
	NameNode = Protocol{Name: ClientProtocol, Version: ClientProtocolVersion}
	// RMAdmin is the ResourceManager's admin protocol
	// (yarn.resourcemanager.admin.address), as `yarn rmadmin` names it on
	// the wire (recorded on 3.3.6: refreshQueues-rpc.txt).
	RMAdmin = Protocol{Name: "org.apache.hadoop.yarn.server.api.ResourceManagerAdministrationProtocolPB", Version: 1}
)

// ErrPacketTooLarge reports a packet above MaxPacket.
var ErrPacketTooLarge = errors.New("ipc: packet larger than 128 MiB")

// AppendPacket appends one framed packet to buf: a big-endian uint32 length,
// then each message prefixed by its varint length. A nil message is skipped,
// as a response to a failed call carries only its header.
func AppendPacket(buf []byte, msgs ...proto.Message) ([]byte, error) {
	start := len(buf)
	buf = append(buf, 0, 0, 0, 0)
	opts := proto.MarshalOptions{}
	for _, m := range msgs {
		if m == nil {
			continue
		}
		size := opts.Size(m)
		buf = binary.AppendUvarint(buf, uint64(size))
		var err error
		buf, err = opts.MarshalAppend(buf, m)
		if err != nil {
			return buf[:start], fmt.Errorf("ipc: marshal %s: %w", m.ProtoReflect().Descriptor().FullName(), err)
		}
	}
	n := len(buf) - start - 4
	if n > MaxPacket {
		return buf[:start], ErrPacketTooLarge
	}
	binary.BigEndian.PutUint32(buf[start:], uint32(n))
	return buf, nil
}

// ReadPacket reads one framed packet into buf (grown as needed) and returns
// its body, without the length prefix.
func ReadPacket(r io.Reader, buf []byte) ([]byte, error) {
	var l [4]byte
	if _, err := io.ReadFull(r, l[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(l[:])
	if n > MaxPacket {
		return nil, ErrPacketTooLarge
	}
	if cap(buf) >= int(n) {
		buf = buf[:n]
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, fmt.Errorf("ipc: short packet: %w", err)
		}
		return buf, nil
	}
	// Grow with what arrives rather than trusting the prefix: a peer that
	// claims 128 MiB and sends 4 bytes must not cost 128 MiB.
	b := bytes.NewBuffer(buf[:0])
	if got, err := io.CopyN(b, r, int64(n)); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("ipc: short packet: %d of %d bytes: %w", got, n, err)
	}
	return b.Bytes(), nil
}

// SplitPacket cuts a packet body into its varint-delimited messages. The
// parts alias body.
func SplitPacket(body []byte) ([][]byte, error) {
	var parts [][]byte
	for len(body) > 0 {
		l, n := binary.Uvarint(body)
		if n <= 0 || l > uint64(len(body)-n) {
			return nil, errors.New("ipc: malformed delimited message")
		}
		parts = append(parts, body[n:n+int(l)])
		body = body[n+int(l):]
	}
	return parts, nil
}

// short names the server kind in errors.
func (p Protocol) short() string {
	if p == NameNode {
		return "NameNode"
	}
	if p == RMAdmin {
		return "ResourceManager admin"
	}
	return p.Name
}
