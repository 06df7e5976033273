package rmweb

// Options configure the served endpoints the way yarn-site.xml configures a
// real RM.
type Options struct {
	// ClusterTimestamp is the RM start time in ms, used in ids and clusterInfo.
	ClusterTimestamp int64
	// MutableConfStore is true when yarn.scheduler.configuration.store.class
	// is memory/leveldb/zk/fs; false (the default "file" store) makes every
	// scheduler-conf endpoint answer 400 as Hadoop does.
	MutableConfStore bool
	// RequireUser makes write endpoints answer 401 without ?user.name=
	// (simple auth); AdminUsers, when non-empty, is yarn.admin.acl (403 for
	// others on admin endpoints).
	RequireUser bool
	AdminUsers  []string
	// MaxAppPriority is yarn.cluster.max-application-priority.
	MaxAppPriority int
	// HAState is reported in clusterInfo (ACTIVE, STANDBY).
	HAState string
}
