package ipc

import (
	"fmt"
	"io"
)

// ReadPreamble is the server's side of what a client sends before its first
// call, as Hadoop's ipc.Server.Connection reads it: the 7-byte connection
// header, then the handshake packet (a RequestHeaderProto with call id -3
// and the IpcConnectionContextProto). It returns the connection's user and
// protocol. A wrong version or an auth method other than SIMPLE is answered
// through fatal(exception class, message) with Hadoop's wording (server
// names the endpoint in the SIMPLE-only message); ok is false whenever the
// connection should be closed. The mini cluster's NameNode and RM admin
// endpoint both accept connections through it.
func ReadPreamble(r io.Reader, h *Headers, server string, fatal func(class, msg string)) (user, protocol string, ok bool) {
	var hdr [7]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return "", "", false
	}
	if string(hdr[:4]) != Magic || hdr[4] != Version {
		// Hadoop answers a wrong version with a fatal response, then closes.
		fatal("org.apache.hadoop.ipc.RPC$VersionMismatch",
			fmt.Sprintf("Server IPC version %d cannot communicate with client version %d", Version, hdr[4]))
		return "", "", false
	}
	if hdr[6] != AuthNone {
		fatal("org.apache.hadoop.security.AccessControlException",
			"SIMPLE authentication is the only one this "+server+" supports")
		return "", "", false
	}
	body, err := ReadPacket(r, nil)
	if err != nil {
		return "", "", false
	}
	parts, err := SplitPacket(body)
	if err != nil || len(parts) != 2 {
		return "", "", false
	}
	rh, err := h.ParseRequestHeader(parts[0])
	if err != nil || rh.CallID != HandshakeCallID {
		return "", "", false
	}
	user, protocol, err = h.ParseConnectionContext(parts[1])
	if err != nil {
		return "", "", false
	}
	return user, protocol, true
}
