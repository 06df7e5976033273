package sparkweb

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

type fakeState struct {
	now  time.Time
	apps []App
}

func (f fakeState) Now() time.Time { return f.now }
func (f fakeState) SparkApp(id string) (App, bool) {
	for _, a := range f.apps {
		if a.ID == id {
			return a, true
		}
	}
	return App{}, false
}
func (f fakeState) SparkApps() []App { return f.apps }

// TestApplicationListDates: the History Server's minEndDate (and the
// other date filters) as Spark reads them: inclusive bounds, the
// ms-and-GMT form or a GMT day, a 400 naming a value that does not parse.
func TestApplicationListDates(t *testing.T) {
	at := func(s string) time.Time { t, _ := time.Parse(time.RFC3339, s); return t }
	st := fakeState{now: at("2026-01-02T00:00:00Z"), apps: []App{
		{ID: "application_1_0001", Start: at("2026-01-01T10:00:00Z"), End: at("2026-01-01T10:05:00Z")},
		{ID: "application_1_0002", Start: at("2026-01-01T10:01:00Z"), End: at("2026-01-01T10:30:00Z")},
		{ID: "application_1_0003", Start: at("2026-01-01T11:00:00Z")}, // running: never listed
	}}
	srv := httptest.NewServer(HistoryServer(st))
	defer srv.Close()
	for _, tc := range []struct {
		query string
		code  int
		want  string // ids, newest end first
	}{
		{"status=completed", 200, "application_1_0002 application_1_0001"},
		{"status=completed&minEndDate=2026-01-01T10:05:00.000GMT", 200, "application_1_0002 application_1_0001"},
		{"status=completed&minEndDate=2026-01-01T10:05:00.001GMT", 200, "application_1_0002"},
		{"minEndDate=2026-01-02", 200, ""},
		{"maxEndDate=2026-01-01T10:29:59.999GMT", 200, "application_1_0001"},
		{"minDate=2026-01-01T10:00:30.000GMT", 200, "application_1_0002"},
		{"minEndDate=2026-01-01T10:05:00Z", 400, "Couldn't parse date: 2026-01-01T10:05:00Z"},
		{"minEndDate=1767261900000", 400, "Couldn't parse date: 1767261900000"},
	} {
		resp, err := srv.Client().Get(srv.URL + "/api/v1/applications?" + tc.query)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		if resp.StatusCode == 200 {
			var list []struct{ ID string }
			if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
				t.Fatal(err)
			}
			for _, a := range list {
				got = append(got, a.ID)
			}
		} else {
			var b strings.Builder
			buf := make([]byte, 512)
			n, _ := resp.Body.Read(buf)
			b.Write(buf[:n])
			got = []string{strings.TrimSpace(b.String())}
		}
		resp.Body.Close()
		if resp.StatusCode != tc.code || strings.Join(got, " ") != tc.want {
			t.Errorf("?%s: %d %q, want %d %q", tc.query, resp.StatusCode, strings.Join(got, " "), tc.code, tc.want)
		}
	}
}
