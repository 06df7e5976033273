package sparkobs

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/spark"
)

// Lister lists the History Server's applications (*spark.Client).
type Lister interface {
	Applications(ctx context.Context, query url.Values, each func(*spark.Application) error) error
}

// sparkDate is the History Server's date parameter form (Spark's
// SimpleDateParam: "yyyy-MM-dd'T'HH:mm:ss.SSSz", in GMT).
const sparkDate = "2006-01-02T15:04:05.000GMT"

// CompletedApp is a YARN Spark app the History Server lists as completed.
type CompletedApp struct {
	App cluster.App // ID, Name, Type SPARK, State FINISHED, start and end
	// Known: the observer has read it whole already, or is following it
	// (it saw it run); Backfill needs no listing for it.
	Known bool
}

// Completed lists, in one request, the YARN Spark apps the History Server
// has completed that ended at or after since
// (/applications?status=completed&minEndDate=..., inclusive): the apps
// that finished while the sidecar was down, which the RM's running list
// never showed this observer (issue 36, "backfill from the History
// Server"). Apps of other cluster managers (local-..., app-...) are left
// out. A zero since lists every completed app.
func (o *Observer) Completed(ctx context.Context, since time.Time) ([]CompletedApp, error) {
	l, ok := o.r.(Lister)
	if !ok {
		return nil, errors.New("the Spark reader cannot list the History Server's applications")
	}
	q := url.Values{"status": {"completed"}}
	if !since.IsZero() {
		q.Set("minEndDate", since.UTC().Format(sparkDate))
	}
	var out []CompletedApp
	err := l.Applications(ctx, q, func(a *spark.Application) error {
		if !strings.HasPrefix(a.ID, "application_") || len(a.Attempts) == 0 || !a.Attempts[0].Completed {
			return nil
		}
		at := a.Attempts[0] // newest first
		app := cluster.App{ID: a.ID, Name: a.Name, Type: "SPARK", State: cluster.AppFinished, User: at.SparkUser,
			StartedTime: at.StartTime.Time, FinishedTime: at.EndTime.Time}
		out = append(out, CompletedApp{App: app, Known: o.apps[a.ID] != nil || o.done[a.ID]})
		return nil
	})
	return out, err
}

// CanList reports a reader that can list the History Server's apps (a
// *spark.Client with a History Server address).
func (o *Observer) CanList() bool {
	if _, ok := o.r.(Lister); !ok {
		return false
	}
	if h, ok := o.r.(interface{ HasHistory() bool }); ok {
		return h.HasHistory()
	}
	return true
}

// Pending reports an app Backfill has yet to read whole.
func (o *Observer) Pending(appID string) bool { return o.apps[appID] != nil }
