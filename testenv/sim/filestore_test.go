package sim_test

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
	"github.com/yarn-sidecar/yarn-sidecar/yarn"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/csxml"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/rmadmin"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// A file-store RM as recorded on 3.3.6: the admin edits
// capacity-scheduler.xml and refreshes; a valid file is taken (60/40), an
// invalid one (60/50) is refused with the recorded reason and the old
// queues stay, and restoring the file and refreshing again works.
func TestFileStoreRefreshQueues(t *testing.T) {
	sc, err := sim.LoadScenario("lee-gpu")
	if err != nil {
		t.Fatal(err)
	}
	sc.HadoopVersion = "3.3.6"
	c := sim.StartFileStoreOn(t, sc, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client, err := yarn.New(yarn.Config{RMAddresses: []string{c.URL}})
	if err != nil {
		t.Fatal(err)
	}
	orig, err := os.ReadFile(c.ConfFile)
	if err != nil {
		t.Fatal(err)
	}
	capacities := func() (float64, float64) {
		t.Helper()
		conf, err := client.ConfFromScheduler(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return atof(conf[schedconf.Prefix+"root.crypto.capacity"]), atof(conf[schedconf.Prefix+"root.sort.capacity"])
	}
	write := func(crypto, sort string) {
		t.Helper()
		b, err := csxml.Edit(orig, map[string]string{schedconf.Prefix + "root.crypto.capacity": crypto, schedconf.Prefix + "root.sort.capacity": sort}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(c.ConfFile, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := client.SchedulerConf(ctx); !errors.Is(err, yarn.ErrConfNotMutable) {
		t.Fatalf("scheduler-conf on the file store: %v, want ErrConfNotMutable", err)
	}

	write("60", "40")
	if c, s := capacities(); c != 50 || s != 50 {
		t.Fatalf("before the refresh the RM shows %v/%v, want 50/50 (a file edit alone changes nothing)", c, s)
	}
	if err := rmadmin.RefreshQueues(ctx, c.AdminAddr, "root", nil); err != nil {
		t.Fatalf("valid refresh: %v", err)
	}
	if c, s := capacities(); c != 60 || s != 40 {
		t.Fatalf("after the refresh %v/%v, want 60/40", c, s)
	}

	write("60", "50")
	err = rmadmin.RefreshQueues(ctx, c.AdminAddr, "root", nil)
	var re *rmadmin.RefusedError
	if !errors.As(err, &re) || re.Reason != "java.io.IOException: Failed to re-init queues : Illegal capacity of 1.1 for children of queue root" {
		t.Fatalf("invalid refresh: %v, want the recorded refusal", err)
	}
	if c, s := capacities(); c != 60 || s != 40 {
		t.Fatalf("after a refused refresh %v/%v, want the old 60/40", c, s)
	}

	if err := os.WriteFile(c.ConfFile, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := rmadmin.RefreshQueues(ctx, c.AdminAddr, "root", nil); err != nil {
		t.Fatalf("restore refresh: %v", err)
	}
	if c, s := capacities(); c != 50 || s != 50 {
		t.Fatalf("after the restore %v/%v, want 50/50", c, s)
	}
	if n := c.Admin.Calls("refreshQueues"); n != 3 {
		t.Errorf("%d refreshQueues, want 3", n)
	}
	if !strings.HasSuffix(c.ConfFile, "capacity-scheduler.xml") {
		t.Errorf("conf file %s", c.ConfFile)
	}
}

func atof(s string) float64 {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return -1
	}
	return f
}
