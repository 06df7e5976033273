package main

import (
	"bufio"
	"encoding/xml"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// siteProps reads a Hadoop site file's properties (name → value).
func siteProps(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
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
		t.Fatalf("%s: %v", path, err)
	}
	out := map[string]string{}
	for _, p := range doc.Props {
		name := strings.TrimSpace(p.Name)
		if _, dup := out[name]; dup {
			t.Errorf("%s: %s set twice (Hadoop keeps the last)", path, name)
		}
		out[name] = strings.TrimSpace(p.Value)
	}
	return out
}

// knownNames reads testdata/hadoop-property-names.txt: names, and the
// Capacity Scheduler's per-queue suffixes.
func knownNames(t *testing.T) (names map[string]bool, suffixes []string) {
	t.Helper()
	f, err := os.Open("testdata/hadoop-property-names.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	names = map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) < 2 {
			t.Fatalf("known names: %q has no source", line)
		}
		if fields[0] == "capacity-suffix" {
			suffixes = append(suffixes, fields[1])
			continue
		}
		names[fields[0]] = true
	}
	return names, suffixes
}

// capacityQueueProp: name is yarn.scheduler.capacity.<queue path>.<suffix>
// for a queue path the file defines (root and the children its queues list)
// and a known suffix (<label> standing for a label name).
func capacityQueueProp(name string, queues map[string]bool, suffixes []string) bool {
	rest, ok := strings.CutPrefix(name, "yarn.scheduler.capacity.")
	if !ok {
		return false
	}
	for q := range queues {
		tail, ok := strings.CutPrefix(rest, q+".")
		if !ok {
			continue
		}
		for _, s := range suffixes {
			re := "^" + strings.ReplaceAll(regexp.QuoteMeta(s), regexp.QuoteMeta("<label>"), `[A-Za-z0-9_\-]+`) + "$"
			if regexp.MustCompile(re).MatchString(tail) {
				return true
			}
		}
	}
	return false
}

// Every property of the shipped Hadoop site files is a name Hadoop reads
// (testdata/hadoop-property-names.txt says where each was read); a
// misspelt or invented key would be silently ignored by Hadoop.
func TestShippedSiteFilesUseKnownNames(t *testing.T) {
	names, suffixes := knownNames(t)
	files, err := filepath.Glob("../../configs/hadoop/*.xml")
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob("../../configs/hadoop/*/*.xml")
	files = append(files, more...)
	if len(files) < 8 {
		t.Fatalf("found %d site files: %v", len(files), files)
	}
	for _, f := range files {
		props := siteProps(t, f)
		queues := map[string]bool{"root": true}
		for changed := true; changed; { // queue paths from root down
			changed = false
			for q := range queues {
				for _, c := range strings.Split(props["yarn.scheduler.capacity."+q+".queues"], ",") {
					if c = strings.TrimSpace(c); c != "" && !queues[q+"."+c] {
						queues[q+"."+c], changed = true, true
					}
				}
			}
		}
		for name := range props {
			if !names[name] && !capacityQueueProp(name, queues, suffixes) {
				t.Errorf("%s: %s is not a Hadoop property name this test knows (add it to testdata/hadoop-property-names.txt with where it was read)", f, name)
			}
		}
	}
}

// The docker-compose cluster as shipped: the AM proxy inside the RM, each
// NodeManager's settings in the yarn-site.xml Hadoop loads, the shared part
// of those files equal to the cluster's, no env-var properties that the
// image would write over the mounted file, and the gpu label created as
// the comment says.
func TestComposeSiteFilesAreLoaded(t *testing.T) {
	common := siteProps(t, "../../configs/hadoop/yarn-site.xml")
	if p, ok := common["yarn.web-proxy.address"]; ok && p != common["yarn.resourcemanager.webapp.address"] {
		t.Errorf("yarn.web-proxy.address=%s differs from the RM web address %s: the RM does not embed the AM proxy (recorded, acl-and-proxy) and nothing serves it",
			p, common["yarn.resourcemanager.webapp.address"])
	}
	b, err := os.ReadFile("../../configs/docker-compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	var compose struct {
		Services map[string]struct {
			Volumes     []string          `yaml:"volumes"`
			Environment map[string]string `yaml:"environment"`
			Command     any               `yaml:"command"`
		} `yaml:"services"`
	}
	if err := yaml.Unmarshal(b, &compose); err != nil {
		t.Fatal(err)
	}
	loaded := map[string]bool{"core-site.xml": true, "hdfs-site.xml": true, "yarn-site.xml": true, "mapred-site.xml": true,
		"capacity-scheduler.xml": true, "resource-types.xml": true}
	for name, svc := range compose.Services {
		for k := range svc.Environment {
			if strings.Contains(strings.ToUpper(k), ".XML_") {
				t.Errorf("%s: environment %s: the image's envtoconf.py writes a site file of such properties alone over the mounted one", name, k)
			}
		}
		for _, v := range svc.Volumes {
			src, dst, _ := strings.Cut(strings.TrimSuffix(v, ":ro"), ":")
			if !strings.HasPrefix(dst, "/opt/hadoop/etc/hadoop/") {
				continue
			}
			if base := filepath.Base(dst); !loaded[base] {
				t.Errorf("%s mounts %s as %s, a file Hadoop never loads", name, src, base)
			}
			if _, err := os.Stat(filepath.Join("../../configs", src)); err != nil {
				t.Errorf("%s mounts %s: %v", name, src, err)
			}
		}
	}
	for nm, extra := range map[string][]string{
		"nm-cpu": {"yarn.nodemanager.resource.memory-mb", "yarn.nodemanager.resource.cpu-vcores"},
		"nm-gpu": {"yarn.nodemanager.resource.memory-mb", "yarn.nodemanager.resource.cpu-vcores", "yarn.nodemanager.resource-plugins"},
	} {
		svc, ok := compose.Services[nm]
		if !ok {
			t.Errorf("no %s service", nm)
			continue
		}
		want := "./hadoop/" + nm + "/yarn-site.xml:/opt/hadoop/etc/hadoop/yarn-site.xml:ro"
		found := false
		for _, v := range svc.Volumes {
			found = found || v == want
		}
		if !found {
			t.Errorf("%s does not mount its yarn-site.xml (%s): %v", nm, want, svc.Volumes)
		}
		own := siteProps(t, "../../configs/hadoop/"+nm+"/yarn-site.xml")
		for k, v := range common {
			if own[k] != v {
				t.Errorf("%s/yarn-site.xml: %s=%q, the cluster's yarn-site.xml has %q", nm, k, own[k], v)
			}
		}
		for _, k := range extra {
			if own[k] == "" {
				t.Errorf("%s/yarn-site.xml does not set %s", nm, k)
			}
		}
	}
	if v := siteProps(t, "../../configs/hadoop/nm-gpu/yarn-site.xml")["yarn.nodemanager.resource-plugins"]; v != "yarn.io/gpu" {
		t.Errorf("nm-gpu resource-plugins %q, want yarn.io/gpu", v)
	}

	// The label is created as the comment above the labels service says.
	text := string(b)
	i := strings.Index(text, "\n  labels:")
	if i < 0 {
		t.Fatal("no labels service")
	}
	comment := text[strings.LastIndex(text[:i], "\n\n"):i]
	created := regexp.MustCompile(`addToClusterNodeLabels "gpu\(exclusive=(true|false)\)"`).FindStringSubmatch(text)
	if created == nil {
		t.Fatal("the labels service does not create gpu with an explicit exclusivity")
	}
	saysNon := strings.Contains(comment, "non-exclusive `gpu`")
	saysExcl := strings.Contains(comment, "exclusive `gpu`") && !saysNon
	if created[1] == "false" && !saysNon || created[1] == "true" && !saysExcl {
		t.Errorf("gpu is created exclusive=%s but the comment says:%s", created[1], comment)
	}
}
