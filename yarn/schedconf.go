package yarn

import (
	"context"
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
		VersionID jerseyInt `json:"versionID"` // {"versionID":"2"} on 3.3.6
	}
	if err := c.rmGet(ctx, "/ws/v1/cluster/scheduler-conf/version", nil, &body); err != nil {
		return 0, notMutable(err)
	}
	return int64(body.VersionID), nil
}

// ValidateMutation is POST /scheduler-conf/validate (changes nothing).
func (c *Client) ValidateMutation(ctx context.Context, m schedconf.Mutation) error {
	body, err := m.EncodeXML()
	if err != nil {
		return err
	}
	if err := c.rmWrite(ctx, "POST", "/ws/v1/cluster/scheduler-conf/validate", nil, body, "application/xml", nil); err != nil {
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
// A standby's 307 is followed with the body to the active RM (a standby
// applies nothing); ErrNoActiveRM means no RM took it.
func (c *Client) UpdateConf(ctx context.Context, m schedconf.Mutation) error {
	body, err := m.EncodeXML()
	if err != nil {
		return err
	}
	var answer string
	if err := c.rmWrite(ctx, "PUT", "/ws/v1/cluster/scheduler-conf", nil, body, "application/xml", &answer); err != nil {
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
