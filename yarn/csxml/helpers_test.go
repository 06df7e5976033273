package csxml_test

import (
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/yarn"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

func parseFile(t *testing.T, path string) schedconf.Conf {
	t.Helper()
	c, err := yarn.CapacitySchedulerConf(path)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
