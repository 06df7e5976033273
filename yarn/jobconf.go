package yarn

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// InputDirKey is the job-conf property FileInputFormat reads its input
// paths from (comma-separated, "\," escaped; hdfs.SplitInputDirs splits it).
const InputDirKey = "mapreduce.input.fileinputformat.inputdir"

// JobInputDir returns a MapReduce job's mapreduce.input.fileinputformat.inputdir
// from its AM's job configuration (jobs/{id}/conf through the RM proxy), or
// from JobHistory's once the AM is gone (404). "" with no error means the
// job has no such property (not a FileInputFormat job).
func (c *Client) JobInputDir(ctx context.Context, app cluster.App, jobID string) (string, error) {
	b, err := c.amBase(app)
	if err != nil {
		return "", err
	}
	v, err := c.confProperty(ctx, b, jobID, InputDirKey)
	var re *RemoteError
	if errors.As(err, &re) && re.Status == http.StatusNotFound && c.cfg.JHSAddress != "" {
		h, herr := c.jhsBase()
		if herr != nil {
			return "", herr
		}
		v, err = c.confProperty(ctx, h, jobID, InputDirKey)
	}
	if err != nil {
		return "", fmt.Errorf("job %s conf: %w", jobID, err)
	}
	return v, nil
}

func (c *Client) confProperty(ctx context.Context, b jobBase, jobID, key string) (string, error) {
	var conf confJSON // Jersey: one property comes as an object, not a list
	if err := c.getJSON(ctx, b.root+"/jobs/"+jobID+"/conf", nil, &conf); err != nil {
		return "", err
	}
	for _, p := range conf.Conf.Property {
		if p.Name == key {
			return strings.TrimSpace(p.Value), nil
		}
	}
	return "", nil
}
