// Package ipc speaks Hadoop IPC, the framing under every NameNode RPC, with
// the message types colinmarc/hdfs registers in the protobuf global registry.
//
// colinmarc/hdfs keeps its generated Hadoop protobuf types and its RPC code
// in internal packages, and exposes no block-location call. Its types still
// register themselves when the module is linked, so this package looks each
// message and field up by name (HADOOP-API.md, "NameNode RPC without copying
// Hadoop's .proto files"): no copied .proto files and no hand-kept field
// numbers, and every message is byte-for-byte what colinmarc/hdfs sends and
// expects. Both the sidecar's block-location client (Conn) and the mini
// NameNode in testenv/namenode frame their packets here; the mini NameNode is
// in turn checked against colinmarc/hdfs's own, unmodified client, which
// keeps this framing honest.
//
// The wire format, from Hadoop's ipc/Server.java and Client.java:
//
//	connection: "hrpc" | version 9 | service class | auth protocol (0 = none)
//	            then one packet: RpcRequestHeaderProto (callId -3) + IpcConnectionContextProto
//	request:    uint32 length | varint-delimited RpcRequestHeaderProto, RequestHeaderProto, request
//	response:   uint32 length | varint-delimited RpcResponseHeaderProto [, response]
package ipc
