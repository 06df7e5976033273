package main

import (
	"bufio"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// The unit the Debian package installs runs the packaged binary with the
// packaged config, in its state directory (issue 35: no working directory,
// so the example config's relative store landed on a read-only root).
func TestSystemdUnit(t *testing.T) {
	f, err := os.Open("../../configs/yarn-sidecar.service")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	service := map[string]string{}
	section := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		switch {
		case l == "" || strings.HasPrefix(l, "#"):
		case strings.HasPrefix(l, "["):
			section = l
		case section == "[Service]":
			k, v, ok := strings.Cut(l, "=")
			if !ok {
				t.Errorf("[Service] line %q is not key=value", l)
			}
			service[k] = v
		}
	}
	for k, want := range map[string]string{
		"ExecStart":        "/usr/bin/yarn-sidecar run --config /etc/yarn-sidecar/sidecar.yaml",
		"StateDirectory":   "yarn-sidecar",
		"WorkingDirectory": "/var/lib/yarn-sidecar",
		"User":             "yarn-sidecar",
		"KillSignal":       "SIGTERM",
	} {
		if service[k] != want {
			t.Errorf("%s=%q, want %q", k, service[k], want)
		}
	}
}

// make dist's pieces: the target runs scripts/dist.sh, which is valid sh
// and maps git describe to Debian versions; the LICENSE and CHANGELOG it
// packages are there. `make dist` itself takes minutes (two GOARCHes): it
// is run by hand on a clean clone, not by make test.
func TestDistPieces(t *testing.T) {
	mk, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^dist:\n\t\./scripts/dist\.sh$`).Match(mk) {
		t.Error("Makefile has no dist target running ./scripts/dist.sh")
	}
	if st, err := os.Stat("../../scripts/dist.sh"); err != nil || st.Mode()&0o111 == 0 {
		t.Fatalf("scripts/dist.sh missing or not executable: %v", err)
	}
	if out, err := exec.Command("sh", "-n", "../../scripts/dist.sh").CombinedOutput(); err != nil {
		t.Fatalf("sh -n scripts/dist.sh: %v\n%s", err, out)
	}
	script, _ := os.ReadFile("../../scripts/dist.sh")
	fn := regexp.MustCompile(`(?ms)^debversion\(\) \{.*?^\}`).Find(script)
	if fn == nil {
		t.Fatal("scripts/dist.sh has no debversion function")
	}
	for in, want := range map[string]string{
		"v0.1.0": "0.1.0", "v0.1.0-3-gabc1234": "0.1.0+3.gabc1234", "4df8d41": "0.0.0+g4df8d41",
		"abc1234-dirty": "0.0.0+gabc1234.dirty", "v1.2.3-1-g0a1b2c3-dirty": "1.2.3+1.g0a1b2c3.dirty",
	} {
		out, err := exec.Command("sh", "-c", string(fn)+"\ndebversion "+in).Output()
		if err != nil || strings.TrimSpace(string(out)) != want {
			t.Errorf("debversion %s = %q (%v), want %q", in, out, err, want)
		}
	}
	lic, err := os.ReadFile("../../LICENSE")
	if err != nil || !strings.Contains(string(lic), "Apache License\n                           Version 2.0, January 2004") {
		t.Errorf("LICENSE is not the Apache License 2.0 (%v)", err)
	}
	cl, err := os.ReadFile("../../CHANGELOG.md")
	if err != nil || !regexp.MustCompile(`(?m)^## \[\d+\.\d+\.\d+\]`).Match(cl) {
		t.Errorf("CHANGELOG.md has no release entry (%v)", err)
	}
}
