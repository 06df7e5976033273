package spark

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// One method per REST resource (Spark's ApiRootResource and its
// sub-resources), each with the query parameters the monitoring docs give.

// Applications lists the History Server's applications
// (/api/v1/applications; query e.g. status=completed, minEndDate=...,
// limit=N).
func (c *Client) Applications(ctx context.Context, query url.Values, each func(*Application) error) error {
	if c.history == "" {
		return errors.New("spark: no History Server address: set spark.yarn.historyServer.address")
	}
	return c.get(ctx, c.history+"/api/v1/applications", query, false, func(dec *jsontext.Decoder) error {
		return decodeArray(dec, each)
	})
}

// Application is /applications/<id> (its attempts, newest first). On the
// History Server ask with Source History(appID, "").
func (c *Client) Application(ctx context.Context, src Source) (Application, error) {
	var a Application
	err := c.get(ctx, appOnly(src.appRoot), nil, src.proxied, func(dec *jsontext.Decoder) error {
		a = Application{}
		return decodeValue(dec, &a)
	})
	return a, err
}

// appOnly drops an attempt id from an app root: /applications/<id> lists
// every attempt.
func appOnly(root string) string {
	i := strings.Index(root, "/api/v1/applications/")
	if i < 0 {
		return root
	}
	head, tail := root[:i+len("/api/v1/applications/")], root[i+len("/api/v1/applications/"):]
	if j := strings.IndexByte(tail, '/'); j >= 0 {
		tail = tail[:j]
	}
	return head + tail
}

// Jobs streams /jobs (status filters: running, succeeded, failed, unknown;
// "" all).
func (c *Client) Jobs(ctx context.Context, src Source, status string, each func(*Job) error) error {
	return c.get(ctx, src.appRoot+"/jobs", statusQuery(status), src.proxied, func(dec *jsontext.Decoder) error {
		return decodeArray(dec, each)
	})
}

// Executors streams /executors (active executors) or, with all,
// /allexecutors (active and removed: dynamic allocation's released
// executors appear only there).
func (c *Client) Executors(ctx context.Context, src Source, all bool, each func(*Executor) error) error {
	p := "/executors"
	if all {
		p = "/allexecutors"
	}
	return c.get(ctx, src.appRoot+p, nil, src.proxied, func(dec *jsontext.Decoder) error {
		return decodeArray(dec, each)
	})
}

// MiscProcesses streams /allmiscellaneousprocess (on YARN, the AM).
func (c *Client) MiscProcesses(ctx context.Context, src Source, each func(*MiscProcess) error) error {
	return c.get(ctx, src.appRoot+"/allmiscellaneousprocess", nil, src.proxied, func(dec *jsontext.Decoder) error {
		return decodeArray(dec, each)
	})
}

// Stages streams /stages, every attempt of every stage the UI retains
// (spark.ui.retainedStages); status filters: active, complete, pending,
// failed ("" all).
func (c *Client) Stages(ctx context.Context, src Source, status string, each func(*Stage) error) error {
	return c.get(ctx, src.appRoot+"/stages", statusQuery(status), src.proxied, func(dec *jsontext.Decoder) error {
		return decodeArray(dec, each)
	})
}

// StageAttempt reads /stages/<stage>/<attempt>: the stage with its
// executor summary, each of its tasks streamed to each (nil: skipped).
func (c *Client) StageAttempt(ctx context.Context, src Source, k StageKey, each func(*Task) error) (Stage, error) {
	if each == nil {
		each = func(*Task) error { return nil }
	}
	var st Stage
	u := src.appRoot + "/stages/" + strconv.Itoa(k.StageID) + "/" + strconv.Itoa(k.AttemptID)
	err := c.get(ctx, u, nil, src.proxied, func(dec *jsontext.Decoder) error {
		return decodeStageAttempt(dec, &st, each)
	})
	return st, err
}

// Task sort orders of taskList (TaskSorting.java: ID,
// INCREASING_RUNTIME alias "runtime", DECREASING_RUNTIME alias
// "-runtime", matched case-insensitively).
const (
	SortByID                = "ID"
	SortByIncreasingRuntime = "INCREASING_RUNTIME"
	SortByDecreasingRuntime = "DECREASING_RUNTIME"
)

// TaskListOptions page a taskList. Spark's defaults are offset 0, length
// 20, sortBy ID.
type TaskListOptions struct {
	Offset, Length int
	SortBy         string
}

// TaskList streams /stages/<stage>/<attempt>/taskList, one page.
func (c *Client) TaskList(ctx context.Context, src Source, k StageKey, o TaskListOptions, each func(*Task) error) error {
	if o.Offset < 0 || o.Length < 0 {
		return fmt.Errorf("spark: taskList offset %d length %d: want >= 0", o.Offset, o.Length)
	}
	q := url.Values{}
	if o.Offset > 0 {
		q.Set("offset", strconv.Itoa(o.Offset))
	}
	if o.Length > 0 {
		q.Set("length", strconv.Itoa(o.Length))
	}
	switch strings.ToUpper(o.SortBy) {
	case "", SortByID:
	case SortByIncreasingRuntime, SortByDecreasingRuntime, "RUNTIME", "-RUNTIME":
		q.Set("sortBy", o.SortBy)
	default:
		return fmt.Errorf("spark: taskList sortBy %q: want ID, INCREASING_RUNTIME (runtime) or DECREASING_RUNTIME (-runtime)", o.SortBy)
	}
	u := src.appRoot + "/stages/" + strconv.Itoa(k.StageID) + "/" + strconv.Itoa(k.AttemptID) + "/taskList"
	return c.get(ctx, u, q, src.proxied, func(dec *jsontext.Decoder) error {
		return decodeArray(dec, each)
	})
}

// TaskSummary reads /stages/<stage>/<attempt>/taskSummary at quantiles
// (nil: Spark's default 0.05,0.25,0.5,0.75,0.95).
func (c *Client) TaskSummary(ctx context.Context, src Source, k StageKey, quantiles []float64) (TaskSummary, error) {
	var q url.Values
	if len(quantiles) > 0 {
		parts := make([]string, len(quantiles))
		for i, v := range quantiles {
			if v < 0 || v > 1 {
				return TaskSummary{}, fmt.Errorf("spark: quantile %v: want 0..1", v)
			}
			parts[i] = strconv.FormatFloat(v, 'f', -1, 64)
		}
		q = url.Values{"quantiles": {strings.Join(parts, ",")}}
	}
	var s TaskSummary
	u := src.appRoot + "/stages/" + strconv.Itoa(k.StageID) + "/" + strconv.Itoa(k.AttemptID) + "/taskSummary"
	err := c.get(ctx, u, q, src.proxied, func(dec *jsontext.Decoder) error {
		s = TaskSummary{}
		return decodeValue(dec, &s)
	})
	return s, err
}

func statusQuery(status string) url.Values {
	if status == "" {
		return nil
	}
	return url.Values{"status": {status}}
}
