package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

// yarnsim follows yarn-sidecar's CLI conventions: --help and help print
// the usage (exit 0) listing every subcommand and start nothing; an
// unknown subcommand or a stray argument is an error naming it.
func TestCLIConventions(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		wantErr string
		want    []string
	}{
		{args: []string{"--help"}, want: []string{"Usage:", "yarnsim [command]", "compare", "demo", "serve", "--scenario"}},
		{args: []string{"-h"}, want: []string{"Usage:", "compare", "demo"}},
		{args: []string{"help"}, want: []string{"Usage:", "compare", "demo"}},
		{args: []string{"help", "compare"}, want: []string{"yarnsim compare [flags]", "--seeds", "-o, --output"}},
		{args: []string{"compare", "--help"}, want: []string{"--scenario", "--second-day"}},
		{args: []string{"demo", "--help"}, want: []string{"--out", "--scenarios"}},
		{args: []string{"--version"}, want: []string{"yarnsim ", "Hadoop 3.3.6"}},
		{args: []string{"bogus"}, wantErr: `unknown command "bogus"`},
		{args: []string{"--no-such-flag"}, wantErr: "unknown flag: --no-such-flag"},
		{args: []string{"serve", "--speed", "0"}, wantErr: "--speed must be positive"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var out bytes.Buffer
			root := newRootCmd()
			root.SetArgs(tc.args)
			root.SetOut(&out)
			root.SetErr(&out)
			// A cluster started by mistake would serve until ctx ends:
			// the deadline turns that into a failure, not a hang.
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			err := root.ExecuteContext(ctx)
			if strings.Contains(out.String(), "ResourceManager at") {
				t.Fatalf("%v started a cluster:\n%s", tc.args, out.String())
			}
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("%v: %v (exit 1)", tc.args, err)
			}
			for _, s := range tc.want {
				if !strings.Contains(out.String(), s) {
					t.Errorf("output lacks %q:\n%s", s, out.String())
				}
			}
		})
	}
}
