package calibrate

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// synthetic draws n map attempts per type with true speeds and log-normal noise.
func synthetic(class string, speeds map[string]float64, n int, sigma float64, seed uint64, job string) []Sample {
	r := rand.New(rand.NewPCG(seed, 1))
	var out []Sample
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for typ, sp := range speeds {
		for i := 0; i < n; i++ {
			d := 60 / sp * math.Exp(sigma*r.NormFloat64())
			out = append(out, Sample{AttemptID: fmt.Sprintf("%s_%s_%s_%d", job, class, typ, i), JobID: job, Class: class, NodeType: typ,
				Finish: t0.Add(time.Duration(i) * time.Second), Elapsed: time.Duration(d * float64(time.Second)), Bytes: 128 << 20})
		}
	}
	return out
}

func TestEstimateFromThePapers(t *testing.T) {
	cases := []struct {
		name   string
		speeds map[string]float64
		ref    string
		want   map[string]float64
		tol    float64
	}{
		{"crypto 2x on the GPU type (Lee §4.4.2)", map[string]float64{"cpu": 1, "gpu": 2}, "cpu", map[string]float64{"gpu": 2}, 0.05},
		{"Lee's toy job A 3x on N1", map[string]float64{"N2": 1, "N1": 3}, "N2", map[string]float64{"N1": 3}, 0.05},
		{"job B indifferent", map[string]float64{"N2": 1, "N1": 1}, "N2", map[string]float64{"N1": 1}, 0.05},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tab := Estimate(synthetic("c", tc.speeds, 60, 0.1, 7, "job_1"), Options{Reference: map[string]string{"c": tc.ref}})
			for typ, want := range tc.want {
				r, ok := tab.Rate("c", typ)
				if !ok || !r.Known {
					t.Fatalf("%s unknown", typ)
				}
				if math.Abs(r.Ratio/want-1) > tc.tol {
					t.Fatalf("ratio %v, want %v ±%v%%", r.Ratio, want, tc.tol*100)
				}
				if r.Low > want || r.High < want {
					t.Errorf("90%% interval [%v, %v] misses %v", r.Low, r.High, want)
				}
			}
		})
	}
}

func TestUnknownBelowMinSamples(t *testing.T) {
	s := synthetic("c", map[string]float64{"cpu": 1}, 10, 0.1, 1, "j")
	s = append(s, synthetic("c", map[string]float64{"gpu": 2}, 2, 0.1, 2, "j")...)
	tab := Estimate(s, Options{MinSamples: 3})
	r, ok := tab.Rate("c", "gpu")
	if !ok || r.Known || r.Samples != 2 {
		t.Fatalf("gpu with 2 samples should be unknown: %+v", r)
	}
	if u := tab.Unknown("c", []string{"cpu", "gpu", "ssd"}); strings.Join(u, ",") != "gpu,ssd" {
		t.Fatalf("unknown types %v", u)
	}
	if _, ok := tab.Ratio("c", "gpu"); ok {
		t.Fatal("Ratio must not report an unknown cell")
	}
}

// Decay across runs: a recent run's speed dominates older runs'.
func TestDecayFavoursRecentRuns(t *testing.T) {
	var s []Sample
	for i := 0; i < 6; i++ { // old runs: gpu 2x
		s = append(s, shift(synthetic("c", map[string]float64{"cpu": 1, "gpu": 2}, 5, 0.01, uint64(i), fmt.Sprintf("job_%d", i)), time.Duration(i)*time.Hour)...)
	}
	for i := 6; i < 12; i++ { // recent runs: gpu 3x (a new driver)
		s = append(s, shift(synthetic("c", map[string]float64{"cpu": 1, "gpu": 3}, 5, 0.01, uint64(i), fmt.Sprintf("job_%d", i)), time.Duration(i)*time.Hour)...)
	}
	r, _ := Estimate(s, Options{HalfLifeRuns: 2, Reference: map[string]string{"c": "cpu"}}).Rate("c", "gpu")
	if math.Abs(r.Ratio-3) > 0.1 {
		t.Fatalf("decayed ratio %v, want ~3", r.Ratio)
	}
}

func shift(s []Sample, d time.Duration) []Sample {
	for i := range s {
		s[i].Finish = s[i].Finish.Add(d)
	}
	return s
}

func TestNormalizeAndClassOf(t *testing.T) {
	cases := []struct{ in, want string }{
		{"etl_2026-11-21_run42", "etl_run"}, {"Daily Report 20261121", "daily report"}, {"job-3f9a2b1c77", "job"}, {"42", "unnamed"},
	}
	for _, tc := range cases {
		if got := NormalizeName(tc.in); got != tc.want {
			t.Errorf("NormalizeName(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	a := cluster.App{Name: "x_2026-01-01", Queue: "root.q", User: "u", Tags: []string{"jobclass=crypto"}}
	for key, want := range map[ClassKey]string{"tag": "crypto", "name": "x", "queue": "root.q", "user": "u"} {
		if got := key.ClassOf(a); got != want {
			t.Errorf("%s: %q, want %q", key, got, want)
		}
	}
}

func TestClassifier(t *testing.T) {
	c := Classifier{Rules: []NodeTypeRule{{Name: "fast", HostPattern: "new-*"}, {Name: "gpu", MinGPUs: 1}}}
	cases := []struct {
		n    cluster.Node
		want string
	}{
		{cluster.Node{Host: "new-01", Total: cluster.Resource{MemoryMB: 65536, VCores: 16}}, "fast"},
		{cluster.Node{Host: "old-01", Total: cluster.Resource{MemoryMB: 65536, VCores: 16, GPUs: 4}, Partition: "gpu"}, "gpu"},
		{cluster.Node{Host: "old-02", Total: cluster.Resource{MemoryMB: 65536, VCores: 16}}, "cpu:16c-64g"},
	}
	for _, tc := range cases {
		if got := c.TypeOf(tc.n); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.n.Host, got, tc.want)
		}
	}
}

func TestStoreIdempotentExportImport(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(filepath.Join(dir, "h.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	batch := synthetic("c", map[string]float64{"cpu": 1}, 5, 0.1, 1, "j")
	if n, err := s.Add(batch); err != nil || n != 5 {
		t.Fatalf("add: %d %v", n, err)
	}
	if n, _ := s.Add(batch); n != 0 {
		t.Fatalf("re-adding stored %d duplicates", n)
	}
	var buf bytes.Buffer
	if n, err := s.Export(&buf); err != nil || n != 5 {
		t.Fatalf("export %d %v", n, err)
	}
	s2, err := Open(filepath.Join(dir, "h2.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if n, err := s2.Import(&buf); err != nil || n != 5 {
		t.Fatalf("import %d %v", n, err)
	}
	if _, err := Open(filepath.Join(dir, "h.db")); err == nil || !strings.Contains(err.Error(), "locked") {
		t.Fatalf("second open should say locked, got %v", err)
	}
	bad := filepath.Join(dir, "not-a-store")
	os.WriteFile(bad, []byte("hello, I am not a bbolt file, but a long enough text to look like one"), 0o600)
	if _, err := Open(bad); err == nil {
		t.Fatal("opening a non-store file should fail")
	}
}

// TestCrashSafety SIGKILLs a child process while it writes batches and
// checks every batch it reported committed survives in a consistent file.
func TestCrashSafety(t *testing.T) {
	if os.Getenv("CALIBRATE_CRASH_CHILD") != "" {
		s, err := Open(os.Getenv("CALIBRATE_CRASH_CHILD"))
		if err != nil {
			fmt.Println("ERR", err)
			os.Exit(1)
		}
		for i := 0; ; i++ {
			batch := synthetic("c", map[string]float64{"cpu": 1}, 50, 0.1, uint64(i), fmt.Sprintf("job_%d", i))
			if _, err := s.Add(batch); err != nil {
				fmt.Println("ERR", err)
				os.Exit(1)
			}
			fmt.Println("committed", i)
		}
	}
	path := filepath.Join(t.TempDir(), "crash.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashSafety$")
	cmd.Env = append(os.Environ(), "CALIBRATE_CRASH_CHILD="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	last := -1
	deadline := time.Now().Add(60 * time.Second)
	for sc.Scan() && time.Now().Before(deadline) {
		f := strings.Fields(sc.Text())
		if len(f) == 2 && f[0] == "committed" {
			last, _ = strconv.Atoi(f[1])
			if last >= 20 {
				break
			}
		}
	}
	cmd.Process.Kill() // SIGKILL mid-write
	cmd.Wait()
	if last < 20 {
		t.Fatalf("child committed only %d batches", last)
	}
	s, err := Open(path)
	if err != nil {
		t.Fatalf("reopen after SIGKILL: %v", err)
	}
	defer s.Close()
	if err := s.Check(); err != nil {
		t.Fatalf("file inconsistent: %v", err)
	}
	n, _ := s.Count()
	if n < (last+1)*50 {
		t.Fatalf("%d attempts stored, child committed %d batches of 50", n, last+1)
	}
}

// A run's age is counted in newer runs on the same node type: a type the
// class rarely runs on keeps its measured runs until newer runs measure it
// again (hetero-100: 100 calibration maps of report on gpu, then 30 runs
// on the cpu types only, then one stray gpu attempt 1.5× fast).
func TestDecayCountsRunsPerType(t *testing.T) {
	calib := synthetic("c", map[string]float64{"cpu": 1, "gpu": 1}, 50, 0.01, 1, "job_00")
	for _, tc := range []struct {
		name   string
		later  int     // runs on cpu only after the calibration
		stray  float64 // speed of one later gpu attempt (0: none)
		strays int     // runs with a stray gpu attempt
		want   float64
	}{
		{"no newer gpu run: the calibration stands", 30, 0, 0, 1},
		{"a later run with 20 fast gpu attempts after 30 cpu runs: the calibration's 50 still weigh more", 30, 1.5, 1, 1},
		{"newer gpu runs all say 1.5: they win", 2, 1.5, 12, 1.5},
	} {
		s := append([]Sample(nil), calib...)
		for i := 1; i <= tc.later; i++ {
			s = append(s, shift(synthetic("c", map[string]float64{"cpu": 1}, 5, 0.01, uint64(100+i), fmt.Sprintf("job_%02d", i)), time.Duration(i)*time.Minute)...)
		}
		for i := 0; i < tc.strays; i++ {
			id := fmt.Sprintf("job_s%02d", i)
			s = append(s, shift(synthetic("c", map[string]float64{"cpu": 1}, 5, 0.01, uint64(200+i), id), time.Hour+time.Duration(i)*time.Minute)...)
			s = append(s, shift(synthetic("c", map[string]float64{"gpu": tc.stray}, 20, 0.01, uint64(300+i), id), time.Hour+time.Duration(i)*time.Minute)...)
		}
		r, _ := Estimate(s, Options{Reference: map[string]string{"c": "cpu"}}).Rate("c", "gpu")
		if math.Abs(r.Ratio-tc.want) > 0.05*tc.want {
			t.Errorf("%s: gpu ratio %.2f, want %.2f", tc.name, r.Ratio, tc.want)
		}
	}
}

// OpenReadOnly never creates anything: a missing history reads as empty and
// leaves no file; an existing one reads its attempts and refuses writes.
func TestOpenReadOnly(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "history.db")
	s, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	if all, err := s.All(); err != nil || len(all) != 0 {
		t.Fatalf("missing history: %d samples, %v", len(all), err)
	}
	if _, err := s.Add([]Sample{{AttemptID: "a1", JobID: "j1"}}); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("Add on a read-only history = %v, want ErrReadOnly", err)
	}
	if err := s.SetCursor(time.Unix(5, 0)); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("SetCursor on a read-only history = %v, want ErrReadOnly", err)
	}
	s.Close()
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("OpenReadOnly created %v", ents)
	}

	path = filepath.Join(dir, "history.db")
	w, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Add([]Sample{{AttemptID: "a1", JobID: "j1", Class: "c"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenReadOnly(path); err == nil || !strings.Contains(err.Error(), "status --from") {
		t.Errorf("read-only open while a writer holds it = %v, want the hint to read the daemon's state", err)
	}
	w.Close()
	info, _ := os.Stat(path)
	r, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if n, err := r.Count(); err != nil || n != 1 {
		t.Errorf("read-only count = %d, %v; want 1", n, err)
	}
	if _, err := r.Add([]Sample{{AttemptID: "a2", JobID: "j1"}}); err == nil {
		t.Error("read-only store accepted a write")
	}
	if after, _ := os.Stat(path); !after.ModTime().Equal(info.ModTime()) || after.Size() != info.Size() {
		t.Error("the read-only open changed the file")
	}
}
