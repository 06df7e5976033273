package main

import (
	"encoding/xml"
	"os"
	"strings"
	"testing"
)

// The docker-compose setup keeps a configuration store the sidecar works
// with (README, "Configuration stores"): fs or zk, whose validate works, or
// leveldb through the validate fallback — never file (mutation API off) or
// memory (lost on an RM restart) — and the RM really gets that yarn-site.xml.
func TestComposeSetupKeepsAMutableStore(t *testing.T) {
	b, err := os.ReadFile("../../configs/hadoop/yarn-site.xml")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Props []struct {
			Name  string `xml:"name"`
			Value string `xml:"value"`
		} `xml:"property"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("yarn-site.xml: %v", err)
	}
	props := map[string]string{}
	for _, p := range doc.Props {
		props[strings.TrimSpace(p.Name)] = strings.TrimSpace(p.Value)
	}
	store := props["yarn.scheduler.configuration.store.class"]
	switch store {
	case "fs":
		if props["yarn.scheduler.configuration.fs.path"] == "" {
			t.Error("fs store without yarn.scheduler.configuration.fs.path")
		}
	case "zk", "leveldb":
	default:
		t.Fatalf("store.class %q: the sidecar needs fs, zk or leveldb", store)
	}
	if props["yarn.resourcemanager.scheduler.class"] != "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler" {
		t.Error("the RM does not run the Capacity Scheduler")
	}
	compose, err := os.ReadFile("../../configs/docker-compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(compose), "./hadoop/yarn-site.xml:/opt/hadoop/etc/hadoop/yarn-site.xml") {
		t.Error("docker-compose.yml does not mount configs/hadoop/yarn-site.xml into the Hadoop containers")
	}
}
