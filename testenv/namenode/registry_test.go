package namenode_test

import (
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/hdfsns"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/namenode"
)

// TestRegistry fails when a message type or field the server builds is no
// longer registered (Start resolves them all).
func TestRegistry(t *testing.T) {
	srv, err := namenode.Start(hdfsns.New(), namenode.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}
