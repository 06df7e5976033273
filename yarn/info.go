package yarn

import (
	"context"
	"fmt"
)

// ClusterInfo is what the RM says about itself at /ws/v1/cluster/info.
type ClusterInfo struct {
	State                  string `json:"state"`
	HAState                string `json:"haState"`
	HadoopVersion          string `json:"hadoopVersion"`
	ResourceManagerVersion string `json:"resourceManagerVersion"`
}

// ClusterInfo reads /ws/v1/cluster/info (the RM's version and HA state).
func (c *Client) ClusterInfo(ctx context.Context) (ClusterInfo, error) {
	var body struct {
		ClusterInfo ClusterInfo `json:"clusterInfo"`
	}
	if err := c.rmGet(ctx, "/ws/v1/cluster/info", nil, &body); err != nil {
		return ClusterInfo{}, fmt.Errorf("read cluster info: %w", err)
	}
	return body.ClusterInfo, nil
}
