package rmadmin_test

import (
	"bufio"
	"context"
	"encoding/hex"
	"errors"
	"net"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/hdfs/ipc"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/rmadmin"
	yrmadmin "github.com/yarn-sidecar/yarn-sidecar/yarn/rmadmin"
)

// recorded reads the hex dump of refreshQueues-rpc.txt: every payload in
// order, keyed by direction and client port.
type payload struct {
	toRM bool
	port string
	data []byte
}

func recorded(t *testing.T) []payload {
	t.Helper()
	b, err := os.ReadFile("testdata/refreshQueues-rpc.txt")
	if err != nil {
		t.Fatal(err)
	}
	head := regexp.MustCompile(`^--- \S+ (client->RM|RM->client)\s+127\.0\.0\.1:(\d+) -> 127\.0\.0\.1:(\d+)`)
	line := regexp.MustCompile(`^  [0-9a-f]{4}  ((?:[0-9a-f]{2} )+)`)
	var out []payload
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "====") {
			break
		}
		if m := head.FindStringSubmatch(l); m != nil {
			p := payload{toRM: m[1] == "client->RM", port: m[2]}
			if !p.toRM {
				p.port = m[3]
			}
			out = append(out, p)
			continue
		}
		if m := line.FindStringSubmatch(l); m != nil && len(out) > 0 {
			raw, err := hex.DecodeString(strings.ReplaceAll(strings.TrimSpace(m[1]), " ", ""))
			if err != nil {
				t.Fatal(err)
			}
			out[len(out)-1].data = append(out[len(out)-1].data, raw...)
		}
	}
	if len(out) != 6 {
		t.Fatalf("recorded %d payloads, want 6 (3 connections)", len(out))
	}
	return out
}

// The bytes a real `yarn rmadmin -refreshQueues` sent are served, and the
// answers decode as the real RM's did: SUCCESS with an empty response for
// a valid file, ERROR/YarnException/ERROR_APPLICATION with "Failed to
// re-init queues : Illegal capacity of 1.1 ..." for the invalid one.
func TestServesTheRecordedRefreshQueues(t *testing.T) {
	rec := recorded(t)
	refusal := errors.New("Illegal capacity of 1.1 for children of queue root")
	for i, tc := range []struct {
		name string
		err  error
	}{{"valid", nil}, {"invalid", refusal}, {"restore", nil}} {
		t.Run(tc.name, func(t *testing.T) {
			var user string
			srv, err := rmadmin.Start(func(u string) error { user = u; return tc.err })
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			c, err := net.Dial("tcp", srv.Addr())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(10 * time.Second))
			if _, err := c.Write(rec[2*i].data); err != nil {
				t.Fatal(err)
			}
			got, err := ipc.ReadPacket(bufio.NewReader(c), nil)
			if err != nil {
				t.Fatal(err)
			}
			want, err := ipc.ReadPacket(strings.NewReader(string(rec[2*i+1].data)), nil)
			if err != nil {
				t.Fatal(err)
			}
			h, _ := ipc.NewHeaders()
			gp, _ := ipc.SplitPacket(got)
			wp, _ := ipc.SplitPacket(want)
			g, err := h.ParseResponseHeader(gp[0])
			if err != nil {
				t.Fatal(err)
			}
			w, _ := h.ParseResponseHeader(wp[0])
			if g.CallID != w.CallID || g.Status != w.Status || g.ExceptionClass != w.ExceptionClass || g.ErrorDetail != w.ErrorDetail || string(g.ClientID) != string(w.ClientID) {
				t.Errorf("answer %+v, recorded %+v", g, w)
			}
			if gl, _, _ := strings.Cut(g.ErrorMsg, "\n"); !strings.HasPrefix(w.ErrorMsg, gl) {
				t.Errorf("errorMsg %q, recorded %q", gl, w.ErrorMsg[:min(len(w.ErrorMsg), 120)])
			}
			if len(gp) != len(wp) {
				t.Errorf("%d messages in the answer, recorded %d", len(gp), len(wp))
			}
			if user != "root" {
				t.Errorf("refresh ran as %q, want root (the recorded connection context)", user)
			}
		})
	}
}

// The sidecar's client against the mini admin endpoint: a refusal is a
// *RefusedError with the RM's reason; another protocol is refused.
func TestClientRefreshQueues(t *testing.T) {
	var fail error
	srv, err := rmadmin.Start(func(string) error { return fail })
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := yrmadmin.RefreshQueues(ctx, srv.Addr(), "yarn-sidecar", nil); err != nil {
		t.Fatalf("refresh: %v", err)
	}
	fail = errors.New("Illegal capacity of 1.1 for children of queue root")
	err = yrmadmin.RefreshQueues(ctx, srv.Addr(), "yarn-sidecar", nil)
	var re *yrmadmin.RefusedError
	if !errors.As(err, &re) || !strings.Contains(re.Reason, "Illegal capacity of 1.1") {
		t.Fatalf("refused refresh: %v, want a RefusedError naming the reason", err)
	}
	if n := srv.Calls("refreshQueues"); n != 2 {
		t.Errorf("%d refreshQueues calls, want 2", n)
	}
	// A NameNode client on the admin port is told the protocol is unknown.
	c, err := ipc.Dial(ctx, srv.Addr(), "x", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var rerr *ipc.RemoteError
	if err := c.Call(ctx, "getFileInfo", emptyMsg(), emptyMsg()); !errors.As(err, &rerr) || !strings.Contains(rerr.Message, "Unknown protocol") {
		t.Errorf("ClientProtocol call on the admin port: %v", err)
	}
}
