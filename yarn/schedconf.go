package yarn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// notMutable reports a file-store RM's answer to a scheduler-conf call.
func notMutable(err error) error {
	var re *RemoteError
	if errors.As(err, &re) && re.Status == 400 && strings.Contains(re.Message, "MutableConfScheduler") {
		return fmt.Errorf("%s: %w", re.URL, ErrConfNotMutable)
	}
	return err
}

// SchedulerConf reads GET /ws/v1/cluster/scheduler-conf.
func (c *Client) SchedulerConf(ctx context.Context) (schedconf.Conf, error) {
	var body string
	if err := c.rmGet(ctx, "/ws/v1/cluster/scheduler-conf", nil, &body); err != nil {
		return nil, notMutable(err)
	}
	conf, err := schedconf.ParseConfInfo([]byte(body), "")
	if err != nil {
		return nil, fmt.Errorf("GET /ws/v1/cluster/scheduler-conf: %w", err)
	}
	return conf, nil
}

// ConfVersion reads GET /ws/v1/cluster/scheduler-conf/version.
func (c *Client) ConfVersion(ctx context.Context) (int64, error) {
	var body struct {
		VersionID any `json:"versionID"` // a number, or a string in Jersey's default JSON
	}
	if err := c.rmGet(ctx, "/ws/v1/cluster/scheduler-conf/version", nil, &body); err != nil {
		return 0, notMutable(err)
	}
	v, err := json.Number(fmt.Sprint(body.VersionID)).Int64()
	if err != nil {
		return 0, fmt.Errorf("GET /ws/v1/cluster/scheduler-conf/version: versionID %q: %w", body.VersionID, err)
	}
	return v, nil
}

// ValidateMutation is POST /scheduler-conf/validate (changes nothing).
func (c *Client) ValidateMutation(ctx context.Context, m schedconf.Mutation) error {
	body, err := m.EncodeXML()
	if err != nil {
		return err
	}
	u := c.ActiveRM() + "/ws/v1/cluster/scheduler-conf/validate"
	if err := c.do(ctx, "POST", u, nil, body, "application/xml", nil); err != nil {
		var re *RemoteError
		if errors.As(err, &re) && re.Status == 400 {
			if e := notMutable(err); errors.Is(e, ErrConfNotMutable) {
				return e
			}
			return &MutationRejectedError{Status: re.Status, Message: re.Message}
		}
		return err
	}
	return nil
}

// UpdateConf is PUT /scheduler-conf: one atomic mutation (XML body, the
// documented form). A 400 is a *MutationRejectedError: nothing changed.
func (c *Client) UpdateConf(ctx context.Context, m schedconf.Mutation) error {
	body, err := m.EncodeXML()
	if err != nil {
		return err
	}
	u := c.ActiveRM() + "/ws/v1/cluster/scheduler-conf"
	var answer string
	if err := c.do(ctx, "PUT", u, nil, body, "application/xml", &answer); err != nil {
		var re *RemoteError
		if errors.As(err, &re) && re.Status == 400 {
			if e := notMutable(err); errors.Is(e, ErrConfNotMutable) {
				return e
			}
			return &MutationRejectedError{Status: re.Status, Message: re.Message}
		}
		return err
	}
	return nil
}
