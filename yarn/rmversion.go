package yarn

import (
	"context"
	"fmt"
)

// RMVersion reads the Hadoop version the RM runs (/ws/v1/cluster/info
// hadoopVersion), for the status header.
func (c *Client) RMVersion(ctx context.Context) (string, error) {
	var body struct {
		ClusterInfo *struct {
			HadoopVersion string `json:"hadoopVersion"`
		} `json:"clusterInfo"`
	}
	if err := c.rmGet(ctx, "/ws/v1/cluster/info", nil, &body); err != nil {
		return "", fmt.Errorf("read the RM's version: %w", err)
	}
	if body.ClusterInfo == nil || body.ClusterInfo.HadoopVersion == "" {
		return "", fmt.Errorf("read the RM's version: /ws/v1/cluster/info has no clusterInfo.hadoopVersion")
	}
	return body.ClusterInfo.HadoopVersion, nil
}
