package ipc_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/yarn-sidecar/yarn-sidecar/hdfs/ipc"
)

// What a NameNode (or anything listening on its port) sends back. Seeds are
// well-formed responses built with the package's own encoder.

func responseSeeds(f *testing.F) [][]byte {
	h, err := ipc.NewHeaders()
	if err != nil {
		f.Fatal(err)
	}
	var out [][]byte
	for _, rh := range []ipc.ResponseHeader{
		{CallID: 1, Status: ipc.StatusSuccess},
		{CallID: 1, Status: ipc.StatusError, ExceptionClass: ipc.FileNotFoundException, ErrorMsg: "File does not exist: /x", ErrorDetail: ipc.ErrorApplication},
		{CallID: 1, Status: ipc.StatusError, ExceptionClass: ipc.StandbyException, ErrorMsg: "Operation category READ is not supported in state standby"},
		{CallID: 1, Status: ipc.StatusFatal, ExceptionClass: "org.apache.hadoop.ipc.RpcServerException", ErrorMsg: "fatal"},
	} {
		pkt, err := ipc.AppendPacket(nil, h.NewResponseHeader(rh), &emptypb.Empty{})
		if err != nil {
			f.Fatal(err)
		}
		out = append(out, pkt)
	}
	return out
}

// FuzzReadPacket: framing and the response header; a length prefix claiming
// more than arrived costs no more memory than what arrived.
func FuzzReadPacket(f *testing.F) {
	for _, s := range responseSeeds(f) {
		f.Add(s)
	}
	f.Add([]byte{0x07, 0xff, 0xff, 0xff}) // claims 128 MiB, sends nothing
	h, err := ipc.NewHeaders()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		body, err := ipc.ReadPacket(bytes.NewReader(data), nil)
		if err != nil {
			return
		}
		if len(body) > len(data) {
			t.Fatalf("body of %d bytes from %d bytes of input", len(body), len(data))
		}
		parts, err := ipc.SplitPacket(body)
		if err != nil {
			return
		}
		for _, p := range parts {
			_, _ = h.ParseResponseHeader(p)
			_, _ = h.ParseRequestHeader(p)
			_, _, _ = h.ParseConnectionContext(p)
			_, _ = h.ParseMethodHeader(p)
		}
	})
}

// FuzzCall: a whole client call against a server that answers the bytes
// given; the call returns (error or not) and never panics. The call id of
// the seeds (1) is the first call's.
func FuzzCall(f *testing.F) {
	for _, s := range responseSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, answer []byte) {
		client, server := net.Pipe()
		defer server.Close()
		go func() {
			// Swallow the handshake and the request, then answer.
			go io.Copy(io.Discard, server)
			server.Write(answer)
			server.Close()
		}()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		c, err := ipc.Dial(ctx, "nn.test:8020", "fuzz", func(context.Context, string, string) (net.Conn, error) { return client, nil })
		if err != nil {
			return
		}
		defer c.Close()
		err = c.Call(ctx, "getServerDefaults", &emptypb.Empty{}, &emptypb.Empty{})
		var re *ipc.RemoteError
		if err != nil && !errors.As(err, &re) && !strings.Contains(err.Error(), "getServerDefaults") {
			t.Fatalf("error does not name the call: %v", err)
		}
	})
}
