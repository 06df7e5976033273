package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/internal/testutil"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
)

// zkJar is Debian's zookeeper package's server (.ci/run installs it).
const zkJar = "/usr/share/java/zookeeper.jar"

// startZooKeeper runs a standalone ZooKeeper on loopback with a zoo.cfg in
// a temp dir; it skips the test when the server is not installed.
func startZooKeeper(t *testing.T) string {
	t.Helper()
	java, err := exec.LookPath("java")
	if _, serr := os.Stat(zkJar); serr != nil || err != nil {
		t.Skipf("ZooKeeper server not installed (%s and java needed; apt-get install zookeeper): skipping the HA test", zkJar)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "zoo.cfg")
	// tickTime 500 ms: sessions of 1 s to 10 s are allowed.
	body := fmt.Sprintf("tickTime=500\ndataDir=%s\nclientPort=%d\nclientPortAddress=127.0.0.1\nadmin.enableServer=false\nmaxSessionTimeout=10000\n", filepath.Join(dir, "data"), port)
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	cp := zkJar
	if _, err := os.Stat("/etc/zookeeper/conf"); err == nil {
		cp = "/etc/zookeeper/conf:" + zkJar
	}
	cmd := exec.Command(java, "-cp", cp, "org.apache.zookeeper.server.ZooKeeperServerMain", cfg)
	out := &lockedBuf{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	if !testutil.Poll(60*time.Second, 100*time.Millisecond, func() bool {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
		}
		return err == nil
	}) {
		t.Fatalf("ZooKeeper did not listen on %s within 60 s:\n%s", addr, out.String())
	}
	return addr
}

type lockedBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

type haSidecar struct {
	cmd     *exec.Cmd
	out     *lockedBuf
	metrics string
	audit   string
	done    chan struct{}
}

// TestTwoSidecarsOneLeader runs two daemons in apply mode against one mini
// cluster and one ZooKeeper: one leads and writes, the other stands by
// (dry runs only) and serves metrics; after SIGKILL of the leader the
// standby takes over within two cycle intervals.
func TestTwoSidecarsOneLeader(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs ZooKeeper")
	}
	zkAddr := startZooKeeper(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "yarn-sidecar")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	rm := sim.Start(t, "hetero-100", 3)
	rm.Step(10 * time.Minute)
	const interval = 2 * time.Second
	addrRe := regexp.MustCompile(`metrics at (http://\S+/metrics)`)
	start := func(name string) *haSidecar {
		sd := filepath.Join(dir, name)
		os.MkdirAll(sd, 0o755)
		cfg := filepath.Join(sd, "sidecar.yaml")
		h := &haSidecar{out: &lockedBuf{}, audit: filepath.Join(sd, "audit.jsonl"), done: make(chan struct{})}
		conf := fmt.Sprintf("mode: apply\nrm: [%s]\njobhistory: %s\nuser: yarn-sidecar\ninterval: %s\nstore: %s\naudit_log: %s\nlisten: 127.0.0.1:0\nha:\n  zookeeper: [%s]\n  session_timeout: %s\n",
			rm.URL, rm.URL, interval, filepath.Join(sd, "history.db"), h.audit, zkAddr, interval)
		if err := os.WriteFile(cfg, []byte(conf), 0o600); err != nil {
			t.Fatal(err)
		}
		h.cmd = exec.Command(bin, "run", "--config", cfg, "--log-level", "info")
		h.cmd.Stdout, h.cmd.Stderr = h.out, h.out
		if err := h.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { h.cmd.Wait(); close(h.done) }()
		t.Cleanup(func() { _ = h.cmd.Process.Kill(); <-h.done })
		if !testutil.Poll(30*time.Second, 50*time.Millisecond, func() bool {
			m := addrRe.FindStringSubmatch(h.out.String())
			if m != nil {
				h.metrics = m[1]
			}
			return m != nil
		}) {
			t.Fatalf("%s did not start:\n%s", name, h.out.String())
		}
		return h
	}
	a := start("a")
	if !testutil.Poll(30*time.Second, 50*time.Millisecond, func() bool { return metricValue(t, a.metrics, "yarn_sidecar_leader") == 1 }) {
		t.Fatalf("the first sidecar never became leader:\n%s", a.out.String())
	}
	b := start("b")
	// Both run cycles; only the leader writes. The cluster moves 10 s per
	// standby cycle, not per poll: on a loaded machine polls outrun slow
	// cycles and the workload could pass the phase where plans change
	// (the same flake the leveldb daemon test had).
	stepPerCycle := stepper(t, rm, b.metrics, 10*time.Second)
	if !testutil.Poll(60*time.Second, 100*time.Millisecond, func() bool {
		cycles := stepPerCycle()
		return cycles >= 3 && lastApplied(t, a.audit) != nil
	}) {
		t.Fatalf("no write by the leader, or no cycles on the standby, within 60 s")
	}
	if got := metricValue(t, b.metrics, "yarn_sidecar_leader"); got != 0 {
		t.Fatalf("standby's leader gauge is %v while the first sidecar leads", got)
	}
	if rec := lastApplied(t, b.audit); rec != nil {
		t.Fatalf("the standby wrote to YARN: %v", rec)
	}

	// Kill the leader; its session ends; the standby takes over.
	killed := time.Now()
	if err := a.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-a.done
	if !testutil.Poll(30*time.Second, 20*time.Millisecond, func() bool { return metricValue(t, b.metrics, "yarn_sidecar_leader") == 1 }) {
		t.Fatalf("the standby did not take over within 30 s:\n%s", b.out.String())
	}
	takeover := time.Since(killed)
	if !testutil.Poll(60*time.Second, 100*time.Millisecond, func() bool {
		stepPerCycle()
		return lastApplied(t, b.audit) != nil
	}) {
		t.Fatalf("the new leader never wrote:\n%s", b.out.String())
	}
	t.Logf("failover: the standby held the lease %v after SIGKILL of the leader (session timeout and interval %v)", takeover, interval)
	if takeover > 2*interval {
		t.Errorf("takeover took %v, more than two cycle intervals (%v)", takeover, 2*interval)
	}
}

// stepper returns a poll body that advances the mini cluster by step each
// time the daemon behind metrics finishes a cycle, and returns its cycle
// count: virtual time then follows the daemon, not the poll rate.
func stepper(t *testing.T, rm interface{ Step(time.Duration) }, metrics string, step time.Duration) func() float64 {
	seen := -1.0
	return func() float64 {
		cycles := metricValue(t, metrics, "yarn_sidecar_cycles_total")
		if cycles > seen {
			rm.Step(step)
			seen = cycles
		}
		return cycles
	}
}
