package sidecar

import (
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/decide"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestLendStore(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "history.lend.json")
	lend := decide.ReplayLend{Node: "gpu-1:8041", Partition: "gpu", Type: "gpu", Since: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Out: true,
		Done: map[string]time.Time{"gpu-b": time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)}}

	if err := (&LendStore{Path: path, ReadOnly: true}).Save(lend); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("a read-only store wrote %s", path)
	}
	if err := (&LendStore{Path: path}).Save(lend); err != nil {
		t.Fatal(err)
	}
	// A daemon restarted during the lend reads it back.
	got, err := (&LendStore{Path: path, ReadOnly: true}).Load()
	if err != nil {
		t.Fatal(err)
	}
	if got.Node != lend.Node || got.Partition != "gpu" || !got.Since.Equal(lend.Since) || !got.Out || !got.Done["gpu-b"].Equal(lend.Done["gpu-b"]) {
		t.Fatalf("loaded %+v, want %+v", got, lend)
	}
	var none *LendStore
	if l, err := none.Load(); err != nil || l.Node != "" {
		t.Fatalf("nil store: %+v, %v", l, err)
	}
	if err := os.WriteFile(path, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := (&LendStore{Path: path}).Load(); err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("broken file: %v, want an error naming %s", err, path)
	}
}
