package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/internal/testutil"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
)

// runCLI runs one command in-process and returns its stdout and stderr.
func runCLI(t *testing.T, ctx context.Context, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	root := newRootCmd()
	root.SetArgs(args)
	root.SetOut(&out)
	root.SetErr(&errb)
	err := root.ExecuteContext(ctx)
	return out.String(), errb.String(), err
}

// decodeOne decodes stdout strictly: exactly one JSON document, nothing but
// whitespace after it, and no null anywhere (empty collections are [] / {}).
func decodeOne(stdout string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("stdout is not one JSON document: %w\n%s", err, stdout)
	}
	if rest, _ := io.ReadAll(dec.Buffered()); strings.TrimSpace(string(rest)) != "" || dec.More() {
		return nil, fmt.Errorf("something follows the JSON document on stdout: %q", rest)
	}
	if path := findNull(v, "$"); path != "" {
		return nil, fmt.Errorf("null at %s in\n%s", path, stdout)
	}
	return v, nil
}

func findNull(v any, path string) string {
	switch x := v.(type) {
	case nil:
		return path
	case map[string]any:
		for k, e := range x {
			if p := findNull(e, path+"."+k); p != "" {
				return p
			}
		}
	case []any:
		for i, e := range x {
			if p := findNull(e, fmt.Sprintf("%s[%d]", path, i)); p != "" {
				return p
			}
		}
	}
	return ""
}

// TestEveryCommandPrintsOneJSONDocument runs each command with -o json
// against the mini cluster and pipes stdout through a strict decoder.
// The mini RM's clock is the scenario's (2026-01-01), not this host's, so
// calibrate --backfill --since is also checked to be measured on the RM's
// clock: on the host's clock the window would hold none of its jobs.
func TestEveryCommandPrintsOneJSONDocument(t *testing.T) {
	rm := sim.Start(t, "lee-toy", 1)
	rm.Step(3 * time.Minute) // both jobs running
	if d := time.Since(rm.Now()); d > -time.Hour && d < time.Hour {
		t.Fatalf("the mini RM's clock (%s) is within an hour of this host's: the clock check needs them apart", rm.Now())
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "sidecar.yaml")
	conf := "rm: [" + rm.URL + "]\njobhistory: " + rm.URL + "\nuser: yarn-sidecar\ninterval: 1s\n" +
		"store: " + filepath.Join(dir, "history.db") + "\naudit_log: " + filepath.Join(dir, "audit.jsonl") + "\nlisten: 127.0.0.1:0\n"
	if err := os.WriteFile(cfg, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	check := func(name string, want func(any) error, args ...string) {
		t.Helper()
		stdout, stderr, err := runCLI(t, ctx, append(args, "--config", cfg, "-o", "json", "--log-level", "error")...)
		if err != nil {
			t.Fatalf("%s: %v\nstderr: %s", name, err, stderr)
		}
		v, err := decodeOne(stdout)
		if err != nil {
			t.Fatalf("%s: %v\nstderr: %s", name, err, stderr)
		}
		if want != nil {
			if err := want(v); err != nil {
				t.Errorf("%s: %v\n%s", name, err, stdout)
			}
		}
	}
	isList := func(min int) func(any) error {
		return func(v any) error {
			l, ok := v.([]any)
			if !ok || len(l) < min {
				return fmt.Errorf("want a list of at least %d, got %T", min, v)
			}
			return nil
		}
	}
	hasKeys := func(keys ...string) func(any) error {
		return func(v any) error {
			m, ok := v.(map[string]any)
			if !ok {
				return fmt.Errorf("want an object, got %T", v)
			}
			for _, k := range keys {
				if _, ok := m[k]; !ok {
					return fmt.Errorf("no %q", k)
				}
			}
			return nil
		}
	}

	check("calibrate (empty history)", isList(0), "calibrate")
	check("observe", func(v any) error {
		if err := hasKeys("nodes", "queues", "apps", "errors")(v); err != nil {
			return err
		}
		if errs, ok := v.(map[string]any)["errors"].([]any); !ok || len(errs) != 0 {
			return fmt.Errorf("errors = %v, want [] (every read succeeded)", v.(map[string]any)["errors"])
		}
		return nil
	}, "observe")
	check("plan", hasKeys("plan", "result"), "plan")
	check("apply (dry-run)", hasKeys("plan", "result"), "apply")
	check("deadlines", isList(0), "deadlines")
	check("status", hasKeys("header", "queues"), "status")
	check("report", hasKeys("report"), "report", "--html", filepath.Join(dir, "report.html"))

	// run: the one line on stdout is a document; stop it after it printed.
	func() {
		rctx, cancel := context.WithCancel(ctx)
		defer cancel()
		var out testutil.SyncBuffer
		done := make(chan error, 1)
		go func() {
			root := newRootCmd()
			root.SetArgs([]string{"run", "--config", cfg, "-o", "json", "--log-level", "error"})
			root.SetOut(&out)
			root.SetErr(io.Discard)
			done <- root.ExecuteContext(rctx)
		}()
		if !testutil.Poll(30*time.Second, 50*time.Millisecond, func() bool { return strings.HasSuffix(out.String(), "\n") }) {
			t.Fatal("run printed nothing in 30 s")
		}
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("run: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("run did not stop")
		}
		v, err := decodeOne(out.String())
		if err != nil {
			t.Fatalf("run: %v", err)
		}
		if err := hasKeys("mode", "stateDir", "metrics", "report")(v); err != nil {
			t.Errorf("run: %v", err)
		}
	}()

	// Finish the jobs, then backfill a window measured on the RM's clock.
	if !rm.RunUntilDone(6 * time.Hour) {
		t.Fatal("jobs did not finish in 6 virtual hours")
	}
	stdout, stderr, err := runCLI(t, ctx, "calibrate", "--backfill", "--since", "7d", "--config", cfg, "-o", "json", "--log-level", "error")
	if err != nil {
		t.Fatalf("backfill: %v\n%s", err, stderr)
	}
	v, err := decodeOne(stdout)
	if err != nil {
		t.Fatalf("backfill: %v\nstderr: %s", err, stderr)
	}
	t.Logf("backfill stderr: %s\nstdout: %.200s", stderr, stdout)
	if err := isList(1)(v); err != nil {
		t.Errorf("backfill on the RM's clock found no rates: %v (stderr %s)", err, stderr)
	} else if err := hasKeys("class", "nodeType", "reference", "ratio", "low", "high", "samples", "known")(v.([]any)[0]); err != nil {
		t.Errorf("calibrate -o json cell is not camelCase like every other command's JSON: %v\n%s", err, stdout)
	}
	wantSince := rm.Now().Add(-7 * 24 * time.Hour).UTC().Format(time.RFC3339)
	if !strings.Contains(stderr, "backfilled") || !strings.Contains(stderr, "since "+wantSince) {
		t.Errorf("backfill note on stderr should name the window start %s on the RM's clock: %q", wantSince, stderr)
	}
	if strings.Contains(stdout, "backfilled") || strings.Contains(stdout, "reading jobs") {
		t.Errorf("progress or notes on stdout: %q", stdout)
	}
	export := filepath.Join(dir, "history.jsonl")
	check("calibrate --export", hasKeys("exported", "file"), "calibrate", "--export", export)
	check("calibrate --import", hasKeys("imported", "file"), "calibrate", "--import", export)
}

// Nil slices and maps, at any depth, encode as [] and {}.
func TestWriteJSONEmptyNotNull(t *testing.T) {
	type inner struct {
		L []int            `json:"l"`
		M map[string]int   `json:"m"`
		O []string         `json:"o,omitempty"`
		P *inner           `json:"p,omitempty"`
		T time.Time        `json:"t"`
		S map[string][]int `json:"s"`
	}
	type outer struct {
		Items []inner  `json:"items"`
		Ptr   *inner   `json:"ptr"`
		Nil   []*inner `json:"nil"`
	}
	v := outer{Items: []inner{{S: map[string][]int{"a": nil}}}, Ptr: &inner{P: &inner{}}}
	var buf bytes.Buffer
	if err := writeJSON(&buf, v); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "null") {
		t.Fatalf("null in %s", buf.String())
	}
	for _, want := range []string{`"l": []`, `"m": {}`, `"a": []`, `"nil": []`} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("no %s in %s", want, buf.String())
		}
	}
	if strings.Contains(buf.String(), `"o"`) {
		t.Errorf("omitempty field written: %s", buf.String())
	}
	if v.Items[0].L != nil || v.Ptr.L != nil {
		t.Error("writeJSON changed its argument")
	}
}
