package csxml_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/csxml"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

const p = schedconf.Prefix

func read(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The admin's edit recorded on the real file-store cluster (50/50 → 60/40)
// is exactly what Edit writes: only the two values change.
func TestEditMatchesTheRecordedAdminEdit(t *testing.T) {
	got, err := csxml.Edit(read(t, "capacity-scheduler.orig.xml"), map[string]string{p + "root.crypto.capacity": "60", p + "root.sort.capacity": "40"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := read(t, "capacity-scheduler.valid-60-40.xml"); !bytes.Equal(got, want) {
		t.Fatalf("edited file differs from the recorded one:\n%s", got)
	}
}

func TestEdit(t *testing.T) {
	const src = `<?xml version="1.0"?>
<!-- managed by hand -->
<configuration>
  <!-- <property><name>yarn.scheduler.capacity.root.a.capacity</name><value>1</value></property> -->
  <property>
    <name>yarn.scheduler.capacity.root.a.capacity</name>
    <value>50</value>
    <description>a's share</description>
  </property>
  <property>
    <name>yarn.scheduler.capacity.root.a.disable_preemption</name>
    <value>true</value>
  </property>
  <property>
    <name>yarn.scheduler.capacity.root.b.capacity</name>
    <value/>
  </property>
</configuration>
`
	for _, tc := range []struct {
		name  string
		set   map[string]string
		unset []string
		want  []string // substrings
		not   []string
	}{
		{name: "value replaced, comments and description kept", set: map[string]string{p + "root.a.capacity": "60.5"},
			want: []string{"<!-- managed by hand -->", "<value>1</value></property> -->", "<value>60.5</value>\n    <description>a's share</description>"}},
		{name: "empty element value set", set: map[string]string{p + "root.b.capacity": "40"}, want: []string{"<name>yarn.scheduler.capacity.root.b.capacity</name>\n    <value>40</value>"}},
		{name: "property removed with its lines", unset: []string{p + "root.a.disable_preemption"}, not: []string{"disable_preemption"},
			want: []string{"  </property>\n  <property>\n    <name>yarn.scheduler.capacity.root.b.capacity"}},
		{name: "new property appended in the file's style", set: map[string]string{p + "root.a.default-node-label-expression": "gpu&x"},
			want: []string{"  <property>\n    <name>yarn.scheduler.capacity.root.a.default-node-label-expression</name>\n    <value>gpu&amp;x</value>\n  </property>\n</configuration>\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := csxml.Edit([]byte(src), tc.set, tc.unset)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(string(got), w) {
					t.Errorf("missing %q in\n%s", w, got)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(string(got), n) {
					t.Errorf("still has %q in\n%s", n, got)
				}
			}
			conf := parse(t, got)
			for k, v := range tc.set {
				if conf[k] != v {
					t.Errorf("%s = %q after the edit, want %q", k, conf[k], v)
				}
			}
		})
	}
	if _, err := csxml.Edit([]byte("<configuration>"), nil, nil); err == nil {
		t.Error("a file without </configuration> was edited")
	}
}

func parse(t *testing.T, b []byte) schedconf.Conf {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cs.xml")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return parseFile(t, path)
}

// The unified diff applies with patch(1) and gives the edited file.
func TestUnifiedDiffAppliesWithPatch(t *testing.T) {
	patch, err := exec.LookPath("patch")
	if err != nil {
		t.Skip("patch(1) is not installed: the diff is not checked against it")
	}
	orig := read(t, "capacity-scheduler.orig.xml")
	edited, err := csxml.Edit(orig, map[string]string{p + "root.crypto.capacity": "60", p + "root.sort.capacity": "40",
		p + "root.crypto.default-node-label-expression": "gpu"}, []string{p + "root.sort.state"})
	if err != nil {
		t.Fatal(err)
	}
	diff, err := csxml.UnifiedDiff("a/capacity-scheduler.xml", "b/capacity-scheduler.xml", orig, edited)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "capacity-scheduler.xml"), orig, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(patch, "-p1", "--no-backup-if-mismatch")
	cmd.Dir, cmd.Stdin = dir, strings.NewReader(diff)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("patch: %v\n%s\n%s", err, out, diff)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "capacity-scheduler.xml"))
	if !bytes.Equal(got, edited) {
		t.Fatalf("patched file differs from the edited one:\n%s", got)
	}
}

func TestRenderParsesBack(t *testing.T) {
	conf := schedconf.Conf{p + "root.queues": "a,b", p + "root.a.capacity": "[memory=1024,vcores=1]", p + "root.b.capacity": "2w"}
	got := parse(t, csxml.Render(conf))
	if len(got) != len(conf) {
		t.Fatalf("rendered %v, parsed back %v", conf, got)
	}
	for k, v := range conf {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
}
