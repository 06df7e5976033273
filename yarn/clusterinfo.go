package yarn

import (
	"context"
	"fmt"
)

// ClusterInfo is the part of GET /ws/v1/cluster/info the sidecar uses.
type ClusterInfo struct {
	HadoopVersion      string `json:"hadoopVersion"`
	ResourceManagerVer string `json:"resourceManagerVersion"`
	HAState            string `json:"haState"`
}

// ClusterInfo reads /ws/v1/cluster/info: the RM's Hadoop version decides
// whether queue weights (capacity=Nw, Hadoop 3.4+) may be written.
func (c *Client) ClusterInfo(ctx context.Context) (ClusterInfo, error) {
	var body struct {
		ClusterInfo ClusterInfo `json:"clusterInfo"`
	}
	if err := c.rmGet(ctx, "/ws/v1/cluster/info", nil, &body); err != nil {
		return ClusterInfo{}, fmt.Errorf("read cluster info: %w", err)
	}
	return body.ClusterInfo, nil
}
