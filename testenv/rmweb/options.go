package rmweb

import "net/http"

// Options configure the served endpoints the way yarn-site.xml configures a
// real RM.
type Options struct {
	// ClusterTimestamp is the RM start time in ms, used in ids and clusterInfo.
	ClusterTimestamp int64
	// MutableConfStore is true when yarn.scheduler.configuration.store.class
	// is memory/leveldb/zk/fs; false (the default "file" store) makes every
	// scheduler-conf endpoint answer 400 as Hadoop does.
	MutableConfStore bool
	// ValidateBrokenAsLevelDB makes POST /scheduler-conf/validate fail for
	// every body, valid or not, the way a real RM with the leveldb store does
	// (the validator opens the store a second time and hits its lock); PUT
	// still works. Recorded on 3.3.6; the code is the same in 3.4.
	ValidateBrokenAsLevelDB bool
	// RequireUser makes write endpoints answer 401 without ?user.name=
	// (simple auth); AdminUsers, when non-empty, is yarn.admin.acl (403 for
	// others on admin endpoints).
	RequireUser bool
	AdminUsers  []string
	// StaticUser is hadoop.http.staticuser.user, the user a request without
	// ?user.name= acts as ("" = Hadoop's default dr.who).
	StaticUser string
	// MaxAppPriority is yarn.cluster.max-application-priority.
	MaxAppPriority int
	// HAState is reported in clusterInfo (ACTIVE, STANDBY). An HA pair is
	// served by NewHAPair, which sets it per RM.
	HAState string
	// HadoopVersion selects the release whose wire details are served where
	// releases differ (messages, app queue names, weight mode): Hadoop336 or
	// Hadoop341; "" is DefaultHadoopVersion.
	HadoopVersion string
	// JobHistoryAddress is host:port of the JobHistory server, used in the
	// AM proxy's redirect for finished apps; "" means the host the request
	// came to (the mini cluster serves JobHistory on the RM's port).
	JobHistoryAddress string
	// ConfFile is a file-store RM's capacity-scheduler.xml: what
	// RefreshQueues (the admin protocol's refreshQueues) re-reads.
	ConfFile string
	// SparkUI, when set, serves /proxy/{appid}/... for SPARK apps: their
	// driver's UI (testenv/sparkweb.DriverUI), which a real proxy forwards
	// to.
	SparkUI http.Handler
	// ReplaceLabelsReadEmpty makes replace-node-to-labels read every
	// entry's labels as an empty list, whatever the body says: the real RM
	// with a body whose labels it cannot read (recorded on 3.3.6 for the
	// key "nodeLabels": 200, an unlabelled node unchanged, a labelled one
	// unlabelled). It lets a test see a label write that answers 200 and
	// does not land.
	ReplaceLabelsReadEmpty bool
}
