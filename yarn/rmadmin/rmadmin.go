// Package rmadmin is the client side of the ResourceManager's admin
// protocol (ResourceManagerAdministrationProtocol at
// yarn.resourcemanager.admin.address): refreshQueues, what
// `yarn rmadmin -refreshQueues` sends, over the Hadoop IPC framing the
// NameNode client already speaks (hdfs/ipc). Simple authentication only:
// a Kerberos cluster's admin port needs SASL, which this client does not
// speak (it fails the handshake with a clear error from the server).
package rmadmin

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/yarn-sidecar/yarn-sidecar/hdfs/ipc"
)

// RefusedError is a refresh the RM refused: the file did not validate and
// the RM kept its old queues (recorded: "Failed to re-init queues : ...").
type RefusedError struct {
	Addr   string
	Reason string // the first line of the RM's message
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("refreshQueues on %s refused, the RM kept its queues: %s", e.Addr, e.Reason)
}

// ErrStandby: the RM is a standby. It refuses admin calls
// (AdminService.checkRMStatus: StandbyException "... is not Active!") and
// loads capacity-scheduler.xml when it becomes active, so a shared file
// needs no refresh there.
var ErrStandby = errors.New("the ResourceManager is standby")

// RefreshQueues asks the RM at addr to re-read capacity-scheduler.xml.
// A refusal is a *RefusedError; anything else (no connection, another
// exception) is returned wrapped.
func RefreshQueues(ctx context.Context, addr, user string, dial ipc.DialFunc) error {
	c, err := ipc.DialProtocol(ctx, ipc.RMAdmin, addr, user, dial)
	if err != nil {
		return err
	}
	defer c.Close()
	err = c.Call(ctx, "refreshQueues", &emptypb.Empty{}, &emptypb.Empty{})
	var re *ipc.RemoteError
	if errors.As(err, &re) && strings.Contains(re.Message, "Failed to re-init queues") {
		first, _, _ := strings.Cut(re.Message, "\n")
		return &RefusedError{Addr: addr, Reason: first}
	}
	if errors.As(err, &re) && re.Standby() {
		return fmt.Errorf("refreshQueues on %s: %w (%s)", addr, ErrStandby, re.Message)
	}
	if err != nil {
		return fmt.Errorf("refreshQueues on %s: %w", addr, err)
	}
	return nil
}
