package learn

import (
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/sparkobs"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

func TestNextSparkCursor(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
	app := func(id string, end int) sparkobs.CompletedApp {
		return sparkobs.CompletedApp{App: cluster.App{ID: id, FinishedTime: at(end)}}
	}
	for _, tc := range []struct {
		name    string
		cursor  time.Time
		listed  []sparkobs.CompletedApp
		pending map[string]bool
		now     time.Time
		want    time.Time
	}{
		{"nothing listed: stays", at(5), nil, nil, at(60), at(5)},
		{"all read: the latest end", at(5), []sparkobs.CompletedApp{app("a", 10), app("b", 20)}, nil, at(60), at(20)},
		{"one pending: its end", at(5), []sparkobs.CompletedApp{app("a", 10), app("b", 20), app("c", 30)}, map[string]bool{"b": true}, at(60), at(20)},
		{"bounded by the History Server's lag", at(5), []sparkobs.CompletedApp{app("a", 55)}, nil, at(60), at(50)},
		{"never back", at(52), []sparkobs.CompletedApp{app("a", 55)}, nil, at(60), at(52)},
		{"pending before the cursor: stays", at(20), []sparkobs.CompletedApp{app("a", 20)}, map[string]bool{"a": true}, at(60), at(20)},
	} {
		got := nextSparkCursor(tc.cursor, tc.listed, func(id string) bool { return tc.pending[id] }, tc.now)
		if !got.Equal(tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
