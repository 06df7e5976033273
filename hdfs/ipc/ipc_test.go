package ipc_test

import (
	"bytes"
	"errors"
	"os"
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/hdfs/ipc"
)

// TestRegistry fails when the registry lacks a header type or field, e.g.
// after a colinmarc/hdfs upgrade (`make proto` runs it).
func TestRegistry(t *testing.T) {
	if _, err := ipc.NewHeaders(); err != nil {
		t.Fatal(err)
	}
	var l ipc.Lookup
	mt := l.Message("hadoop.hdfs.GetBlockLocationsRequestProto")
	if mt != nil {
		l.Field(mt.Descriptor(), "src")
	}
	l.Service("hadoop.hdfs.ClientNamenodeProtocol")
	if err := l.Err(); err != nil {
		t.Fatal(err)
	}
	t.Run("a wrong name is an error, not a panic", func(t *testing.T) {
		var l ipc.Lookup
		mt := l.Message("hadoop.hdfs.NoSuchProto")
		l.Field(nil, "x")
		if mt != nil || l.Err() == nil {
			t.Errorf("lookup of a missing type: %v, %v", mt, l.Err())
		}
	})
}

func TestPacketRoundTrip(t *testing.T) {
	h, err := ipc.NewHeaders()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		rh   ipc.ResponseHeader
	}{
		{"success", ipc.ResponseHeader{CallID: 7, Status: ipc.StatusSuccess, ClientID: []byte("0123456789abcdef")}},
		{"error", ipc.ResponseHeader{CallID: 8, Status: ipc.StatusError, ExceptionClass: ipc.FileNotFoundException, ErrorMsg: "File does not exist: /x", ErrorDetail: ipc.ErrorApplication}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pkt, err := ipc.AppendPacket(nil, h.NewResponseHeader(tc.rh))
			if err != nil {
				t.Fatal(err)
			}
			body, err := ipc.ReadPacket(bytes.NewReader(pkt), nil)
			if err != nil {
				t.Fatal(err)
			}
			parts, err := ipc.SplitPacket(body)
			if err != nil || len(parts) != 1 {
				t.Fatalf("parts %d, err %v", len(parts), err)
			}
			got, err := h.ParseResponseHeader(parts[0])
			if err != nil {
				t.Fatal(err)
			}
			if got.CallID != tc.rh.CallID || got.Status != tc.rh.Status || got.ExceptionClass != tc.rh.ExceptionClass ||
				got.ErrorMsg != tc.rh.ErrorMsg || got.ErrorDetail != tc.rh.ErrorDetail || !bytes.Equal(got.ClientID, tc.rh.ClientID) {
				t.Errorf("round trip = %+v, want %+v", got, tc.rh)
			}
		})
	}
	t.Run("malformed delimiter", func(t *testing.T) {
		if _, err := ipc.SplitPacket([]byte{0x05, 0x01}); err == nil {
			t.Error("want an error for a length past the end")
		}
	})
}

func TestRemoteErrorIs(t *testing.T) {
	cases := []struct {
		class       string
		notExist    bool
		permission  bool
		wantStandby bool
	}{
		{ipc.FileNotFoundException, true, false, false},
		{ipc.AccessControlException, false, true, false},
		{ipc.StandbyException, false, false, true},
		{ipc.IOException, false, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.class, func(t *testing.T) {
			var err error = &os.PathError{Op: "x", Path: "/p", Err: &ipc.RemoteError{Class: tc.class}}
			var re *ipc.RemoteError
			if errors.Is(err, os.ErrNotExist) != tc.notExist || errors.Is(err, os.ErrPermission) != tc.permission ||
				!errors.As(err, &re) || re.Standby() != tc.wantStandby {
				t.Errorf("mapping of %s wrong", tc.class)
			}
		})
	}
}
