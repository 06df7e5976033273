package sim

import (
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/rmadmin"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/rmweb"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/csxml"
)

// UseConfDir makes a file-store cluster keep its configuration in
// dir/capacity-scheduler.xml, written now from the scenario's queues (in
// name order): the file an admin or the sidecar edits and a refreshQueues
// re-reads (rmweb.RefreshQueues). It returns the file's path.
func (c *Cluster) UseConfDir(dir string) (string, error) {
	if !c.sc.FileStore {
		return "", errors.New("sim: a capacity-scheduler.xml is the file store's; the scenario uses a mutable store")
	}
	path := filepath.Join(dir, "capacity-scheduler.xml")
	c.mu.Lock()
	conf := c.conf.Clone()
	c.mu.Unlock()
	if err := os.WriteFile(path, csxml.Render(conf), 0o644); err != nil {
		return "", fmt.Errorf("sim: write %s: %w", path, err)
	}
	c.mu.Lock()
	c.confFile = path
	c.mu.Unlock()
	return path, nil
}

// RefreshQueues is the RM admin protocol's refreshQueues on this cluster.
func (c *Cluster) RefreshQueues(string) error {
	return rmweb.RefreshQueues(c, c.RMOptions())
}

// StartAdmin serves the RM admin protocol (refreshQueues) on loopback.
func (c *Cluster) StartAdmin() (*rmadmin.Server, error) {
	return rmadmin.Start(c.RefreshQueues)
}

// FileStoreCluster is a file-store cluster served on loopback for a test:
// its REST API, its admin port and its capacity-scheduler.xml.
type FileStoreCluster struct {
	*Cluster
	URL       string
	AdminAddr string
	ConfFile  string
	Admin     *rmadmin.Server
}

// StartFileStore builds a scenario's cluster on the file store (whatever
// store the scenario names), its configuration in a temporary directory,
// and serves it for the test.
func StartFileStore(t testing.TB, scenario string, seed int64) *FileStoreCluster {
	t.Helper()
	sc, err := LoadScenario(scenario)
	if err != nil {
		t.Fatalf("load scenario: %v", err)
	}
	return StartFileStoreOn(t, sc, seed)
}

// StartFileStoreOn is StartFileStore for a scenario already loaded (and
// perhaps changed: another Hadoop version).
func StartFileStoreOn(t testing.TB, sc *Scenario, seed int64) *FileStoreCluster {
	t.Helper()
	sc.FileStore, sc.ConfStore = true, "file"
	c, err := NewCluster(sc, seed)
	if err != nil {
		t.Fatalf("new cluster: %v", err)
	}
	path, err := c.UseConfDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	admin, err := c.StartAdmin()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	srv := httptest.NewServer(c.Handler())
	t.Cleanup(srv.Close)
	return &FileStoreCluster{Cluster: c, URL: srv.URL, AdminAddr: admin.Addr(), ConfFile: path, Admin: admin}
}
