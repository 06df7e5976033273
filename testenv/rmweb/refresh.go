package rmweb

import (
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// ConfReplacer is a State whose whole scheduler configuration can be
// replaced at once, validated as a mutation is (a file-store refreshQueues).
type ConfReplacer interface {
	ReplaceConf(conf schedconf.Conf) error
}

// RefreshQueues is a file-store RM's refreshQueues (AdminService →
// CapacityScheduler.reinitialize): re-read Options.ConfFile, check it as a
// scheduler-conf mutation is checked (the same validator, the same 3.3
// dialect), and swap the queues in; when it is invalid the old queues stay
// and the error is the reason the RM gives after "Failed to re-init queues : "
// (recorded on 3.3.6: "Illegal capacity of 1.1 for children of queue root").
//
// Not modelled: the other files a real refresh re-reads (yarn-site's queue
// mappings, the placement rules), and refreshQueues on a mutable store
// (which re-reads the store, not the file): refused here.
func RefreshQueues(s State, o Options) error {
	if o.MutableConfStore {
		return errors.New("mini cluster: refreshQueues on a mutable configuration store is not modelled")
	}
	if o.ConfFile == "" {
		return errors.New("mini cluster: no capacity-scheduler.xml (Options.ConfFile) to refresh from")
	}
	r, ok := s.(ConfReplacer)
	if !ok {
		return errors.New("mini cluster: this RM state cannot replace its configuration")
	}
	b, err := os.ReadFile(o.ConfFile)
	if err != nil {
		return fmt.Errorf("mini cluster: read %s: %w", o.ConfFile, err)
	}
	conf, err := parseCapacityScheduler(b)
	if err != nil {
		return err
	}
	if o.is33() {
		if err := mixedModeAcrossPartitions(conf); err != nil {
			return err
		}
	}
	if err := r.ReplaceConf(conf); err != nil {
		return textError(o.reinitError(err))
	}
	return nil
}

// parseCapacityScheduler reads a capacity-scheduler.xml's
// yarn.scheduler.capacity.* properties (the last of a repeated name wins,
// as in Hadoop's Configuration).
func parseCapacityScheduler(b []byte) (schedconf.Conf, error) {
	var doc struct {
		Property []struct {
			Name  string `xml:"name"`
			Value string `xml:"value"`
		} `xml:"property"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("mini cluster: parse capacity-scheduler.xml: %w", err)
	}
	conf := schedconf.Conf{}
	for _, p := range doc.Property {
		if n := strings.TrimSpace(p.Name); strings.HasPrefix(n, schedconf.Prefix) {
			conf[n] = strings.TrimSpace(p.Value)
		}
	}
	return conf, nil
}
