package yarn

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

type appJSON struct {
	ID                     string  `json:"id"`
	User                   string  `json:"user"`
	Name                   string  `json:"name"`
	Queue                  string  `json:"queue"`
	State                  string  `json:"state"`
	Progress               float64 `json:"progress"`
	TrackingURL            string  `json:"trackingUrl"`
	ApplicationType        string  `json:"applicationType"`
	ApplicationTags        string  `json:"applicationTags"`
	Priority               int     `json:"priority"`
	StartedTime            int64   `json:"startedTime"`
	FinishedTime           int64   `json:"finishedTime"`
	AllocatedMB            int64   `json:"allocatedMB"`
	AllocatedVCores        int64   `json:"allocatedVCores"`
	RunningContainers      int     `json:"runningContainers"`
	MasterNodeID           string  `json:"masterNodeId"`
	AppNodeLabelExpression string  `json:"appNodeLabelExpression"`
}

func msTime(ms int64) time.Time {
	if ms <= 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}

func (a appJSON) app() cluster.App {
	var tags []string
	for _, t := range strings.Split(a.ApplicationTags, ",") {
		if t = strings.TrimSpace(t); t != "" {
			tags = append(tags, t)
		}
	}
	q := a.Queue
	if q != "" && !strings.HasPrefix(q, "root.") && q != "root" {
		q = "root." + q
	}
	return cluster.App{ID: a.ID, Name: a.Name, User: a.User, Queue: q, State: cluster.AppState(a.State), Type: a.ApplicationType,
		Priority: a.Priority, Tags: tags, Progress: a.Progress, StartedTime: msTime(a.StartedTime), FinishedTime: msTime(a.FinishedTime),
		TrackingURL: a.TrackingURL, NodeLabelExpression: a.AppNodeLabelExpression,
		Allocated: cluster.Resource{MemoryMB: a.AllocatedMB, VCores: a.AllocatedVCores}, RunningContainers: a.RunningContainers}
}

// Apps reads /ws/v1/cluster/apps in the given states (e.g. RUNNING).
func (c *Client) Apps(ctx context.Context, states ...string) ([]cluster.App, error) {
	q := url.Values{"deSelects": {"resourceRequests"}}
	if len(states) > 0 {
		q.Set("states", strings.Join(states, ","))
	}
	var body struct {
		Apps *struct {
			App []appJSON `json:"app"`
		} `json:"apps"`
	}
	if err := c.rmGet(ctx, "/ws/v1/cluster/apps", q, &body); err != nil {
		return nil, err
	}
	if body.Apps == nil {
		return nil, nil // Hadoop answers "apps": null when there are none
	}
	out := make([]cluster.App, 0, len(body.Apps.App))
	for i, a := range body.Apps.App {
		if a.ID == "" {
			return nil, fmt.Errorf("GET /ws/v1/cluster/apps: app %d has no id", i)
		}
		out = append(out, a.app())
	}
	return out, nil
}

// Containers reads the running containers of an app's current attempt
// (/apps/{id}/appattempts/{attempt}/containers) and counts them per node.
func (c *Client) Containers(ctx context.Context, appID string) (map[string]int, error) {
	var attempts struct {
		AppAttempts *struct {
			AppAttempt []struct {
				AppAttemptID string `json:"appAttemptId"`
			} `json:"appAttempt"`
		} `json:"appAttempts"`
	}
	if err := c.rmGet(ctx, "/ws/v1/cluster/apps/"+appID+"/appattempts", nil, &attempts); err != nil {
		return nil, err
	}
	if attempts.AppAttempts == nil || len(attempts.AppAttempts.AppAttempt) == 0 {
		return nil, nil
	}
	last := attempts.AppAttempts.AppAttempt[len(attempts.AppAttempts.AppAttempt)-1].AppAttemptID
	var body struct {
		Containers *struct {
			Container []struct {
				NodeID         string `json:"nodeId"`
				AssignedNodeID string `json:"assignedNodeId"`
			} `json:"container"`
		} `json:"containers"`
		Container []struct {
			NodeID         string `json:"nodeId"`
			AssignedNodeID string `json:"assignedNodeId"`
		} `json:"container"`
	}
	if err := c.rmGet(ctx, "/ws/v1/cluster/apps/"+appID+"/appattempts/"+last+"/containers", nil, &body); err != nil {
		return nil, err
	}
	list := body.Container
	if body.Containers != nil {
		list = append(list, body.Containers.Container...)
	}
	out := map[string]int{}
	for _, ct := range list {
		n := ct.NodeID
		if n == "" {
			n = ct.AssignedNodeID
		}
		out[n]++
	}
	return out, nil
}

// SetAppPriority is PUT /apps/{id}/priority; it returns the priority the RM
// reports after the update (it caps values above the maximum).
func (c *Client) SetAppPriority(ctx context.Context, appID string, p int) (int, error) {
	var out struct {
		Priority int `json:"priority"`
	}
	u := c.ActiveRM() + "/ws/v1/cluster/apps/" + appID + "/priority"
	if err := c.do(ctx, "PUT", u, nil, []byte(fmt.Sprintf(`{"priority":%d}`, p)), "application/json", &out); err != nil {
		return 0, err
	}
	return out.Priority, nil
}

// MoveApp is PUT /apps/{id}/queue.
func (c *Client) MoveApp(ctx context.Context, appID, queue string) error {
	u := c.ActiveRM() + "/ws/v1/cluster/apps/" + appID + "/queue"
	return c.do(ctx, "PUT", u, nil, []byte(fmt.Sprintf(`{"queue":%q}`, queue)), "application/json", nil)
}
