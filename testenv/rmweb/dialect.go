package rmweb

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// Hadoop releases the mini cluster can speak. What differs between them is
// chosen here; what is the same (Jersey 1's JSON: a one-element list as an
// object, numbers as strings in some DAOs, float capacities) is served the
// same way for both, as both releases still run Jersey 1.
const (
	Hadoop336 = "3.3.6" // recorded: ../shared/real-hadoop-3.3.6 (testdata/real-3.3.6)
	Hadoop341 = "3.4.1"
	// DefaultHadoopVersion is 3.4.1: the newest release line, the one the
	// shipped scenarios and the sidecar's weight-mode queues were written
	// for (3.3 has no weight mode). Scenarios choose 3.3.6 with
	// hadoop_version.
	DefaultHadoopVersion = Hadoop341
)

// ParseHadoopVersion checks a hadoop_version setting ("" is the default).
func ParseHadoopVersion(v string) (string, error) {
	switch v {
	case "":
		return DefaultHadoopVersion, nil
	case Hadoop336, Hadoop341:
		return v, nil
	}
	return "", fmt.Errorf("hadoop_version %q: the mini cluster speaks %s or %s", v, Hadoop336, Hadoop341)
}

func (o Options) version() string {
	if o.HadoopVersion == "" {
		return DefaultHadoopVersion
	}
	return o.HadoopVersion
}

func (o Options) is33() bool { return strings.HasPrefix(o.version(), "3.3.") }

// buildVersion and builtOn are VersionInfo's strings of each release.
func (o Options) buildVersion() (rm, common, rmBuiltOn, commonBuiltOn string) {
	if o.version() == Hadoop336 {
		return "3.3.6 from 1be78238728da9266a4f88195058f08fd012bf9c by ubuntu source checksum d42eb795a5eadb0febf5e44a7f87a9",
			"3.3.6 from 1be78238728da9266a4f88195058f08fd012bf9c by ubuntu source checksum 5652179ad55f76cb287d9c633bb53bbd",
			"2023-06-18T08:31Z", "2023-06-18T08:22Z"
	}
	v := o.version() + " (yarn-sidecar mini cluster stand-in)"
	return v, v, builtOn, builtOn
}

// appQueue is an app's "queue" field: the leaf's short name on 3.3
// (RMAppImpl keeps the queue name the scheduler returned, crypto for
// root.crypto — recorded), the full path on 3.4 (YARN-9879 made queue paths
// the identity).
func (o Options) appQueue(path string) string {
	if o.is33() {
		return path[strings.LastIndex(path, ".")+1:]
	}
	return path
}

// reinitError is the text after "Failed to re-init queues : " for a
// configuration the scheduler refused. The validator speaks 3.4's wording;
// 3.3 words the capacity-sum check differently (ParentQueue.setChildQueues
// before YARN-10580): recorded "Illegal capacity of 1.1 for children of
// queue root" and "... for label=gpu".
func (o Options) reinitError(err error) string {
	msg := err.Error()
	if !o.is33() {
		return msg
	}
	if m := sumMessage.FindStringSubmatch(msg); m != nil {
		out := "Illegal capacity of " + m[1] + " for children of queue " + m[2]
		if m[3] != "" {
			out += " for label=" + m[3]
		}
		return out
	}
	if m := mixedAbsMessage.FindStringSubmatch(msg); m != nil {
		return m[0]
	}
	return msg
}

var (
	sumMessage      = regexp.MustCompile(`^Illegal capacity sum of ([0-9.E-]+) for children of queue (\S+) for label=(\S*)\.`)
	mixedAbsMessage = regexp.MustCompile(`^Queue '[^']+' should use either percentage based capacity configuration or absolute resource\.`)
)

// weightValue finds a weight ("2w") among a mutation's capacities: 3.3 has
// no weight mode and parses the value as a float, so the RM answers
// `For input string: "2w"` (recorded).
func weightValue(m schedconf.Mutation) (string, bool) {
	check := func(params map[string]string) (string, bool) {
		// The default partition's capacity is parsed first (recorded:
		// capacity=2w with gpu 3w reports "2w").
		keys := append([]string{"capacity", "maximum-capacity"}, slices.Sorted(maps.Keys(params))...)
		for _, k := range keys {
			v := strings.TrimSpace(params[k])
			if (k == "capacity" || k == "maximum-capacity" || strings.HasSuffix(k, ".capacity") || strings.HasSuffix(k, ".maximum-capacity")) &&
				strings.HasSuffix(v, "w") {
				return v, true
			}
		}
		return "", false
	}
	for _, q := range append(append([]schedconf.QueueUpdate{}, m.AddQueue...), m.UpdateQueue...) {
		if v, ok := check(q.Params); ok {
			return v, true
		}
	}
	return "", false
}

// mixedModeAcrossPartitions is 3.3's check that a queue uses one capacity
// mode in all its partitions (recorded: absolute for the default partition
// while the label capacities stay percentages is refused with
// "Queue 'root.crypto' should use either percentage based capacity
// configuration or absolute resource.").
func mixedModeAcrossPartitions(c schedconf.Conf) error {
	t, err := schedconf.ParseTree(c)
	if err != nil {
		return nil // the validator reports it
	}
	for _, q := range t.Leaves() {
		for p := q; p != nil; p = p.Parent {
			abs, pct := false, false
			for _, v := range p.Capacity {
				abs = abs || v.Mode == schedconf.ModeAbsolute
				pct = pct || v.Mode == schedconf.ModePercentage
			}
			if abs && pct {
				return errors.New("Queue '" + p.Path + "' should use either percentage based capacity configuration or absolute resource.")
			}
		}
	}
	return nil
}
