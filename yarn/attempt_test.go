package yarn

import (
	"context"
	"net/http"
	"reflect"
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// The current attempt is read from the AM container's id (ContainerId and
// ApplicationAttemptId formats), and only when the container is the app's.
func TestAttemptOf(t *testing.T) {
	cases := []struct{ app, container, want string }{
		{realApp3, "container_1795412916926_0003_01_000001", "appattempt_1795412916926_0003_000001"}, // recorded
		{"application_1_0042", "container_e17_1_0042_03_000001", "appattempt_1_0042_000003"},         // with an RM epoch
		{"application_1_10042", "container_1_10042_12_000001", "appattempt_1_10042_000012"},          // past 9,999 apps
		{"application_1_0042", "container_1_0043_01_000001", ""},                                     // another app's
		{"application_1_0042", "", ""},
		{"application_1_0042", "container_1_0042_xx_000001", ""},
		{"application_1_0042", "container_1_0042_01", ""},
	}
	for _, c := range cases {
		if got := attemptOf(c.app, c.container); got != c.want {
			t.Errorf("attemptOf(%s, %s) = %q, want %q", c.app, c.container, got, c.want)
		}
	}
	if id := amContainerID("http://gpunode:8042/node/containerlogs/container_1795412916926_0003_01_000001/root"); id != "container_1795412916926_0003_01_000001" {
		t.Errorf("amContainerID = %q", id)
	}
}

// On the real RM's answers, a snapshot lists each app's containers in one
// request: the attempt comes from amContainerLogs, appattempts is not read.
func TestReal336ListingSkipsAttempts(t *testing.T) {
	rp := newReplay(t)
	realRunningRM(t, rp)
	c, err := New(Config{RMAddresses: []string{rp.URL}, Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := c.Observe(context.Background(), ObserveOptions{})
	if err != nil || len(snap.Errors) != 0 {
		t.Fatalf("observe: %v %+v", err, snap.Errors)
	}
	for _, a := range snap.Apps {
		if n := rp.count("GET /ws/v1/cluster/apps/" + a.ID + "/appattempts"); n != 0 {
			t.Errorf("%s: appattempts read %d times, want 0", a.ID, n)
		}
		if len(a.ContainersByNode) == 0 {
			t.Errorf("%s: no containers listed", a.ID)
		}
	}
}

// An attempt the RM no longer knows (a new attempt since /apps was read)
// falls back to reading the attempts.
func TestContainersOfFallsBackOn404(t *testing.T) {
	rp := newReplay(t)
	rp.handle("/ws/v1/cluster/apps/application_1_0042/appattempts/appattempt_1_0042_000001/containers", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(`{"RemoteException":{"exception":"NotFoundException","message":"appAttemptId not found"}}`))
	})
	rp.handle("/ws/v1/cluster/apps/application_1_0042/appattempts", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"appAttempts":{"appAttempt":[{"id":1,"appAttemptId":"appattempt_1_0042_000001"},{"id":2,"appAttemptId":"appattempt_1_0042_000002"}]}}`))
	})
	rp.handle("/ws/v1/cluster/apps/application_1_0042/appattempts/appattempt_1_0042_000002/containers", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"container":{"containerId":"container_1_0042_02_000001","nodeId":"n1:8041","allocatedMB":"1024"}}`))
	})
	c, err := New(Config{RMAddresses: []string{rp.URL}, Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.ContainersOf(context.Background(), &cluster.App{ID: "application_1_0042", AMContainerID: "container_1_0042_01_000001"})
	if err != nil || !reflect.DeepEqual(got, map[string]int{"n1:8041": 1}) {
		t.Fatalf("ContainersOf = %v, %v; want the second attempt's container on n1", got, err)
	}
}
