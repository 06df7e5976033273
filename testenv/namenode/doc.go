// Package namenode is the mini cluster's NameNode: a Hadoop IPC server over
// loopback TCP that answers the ClientProtocol calls colinmarc/hdfs and the
// sidecar's block-location client make (getFileInfo, getListing with and
// without locations, getBlockLocations, getContentSummary,
// getServerDefaults, getFsStats, renewLease) from an hdfsns namespace.
//
// Requests and responses are the registry message types colinmarc/hdfs
// registers (see hdfs/ipc), dispatched through the registered
// ClientNamenodeProtocol service descriptor, so no .proto file is copied and
// no field number is kept by hand. Paging, exceptions and their messages
// follow the NameNode's FSDirStatAndListingOp and FSNamesystem: listings
// page at dfs.ls.limit=1000 entries, or fewer once a page's block locations
// (blocks × replication) reach that budget; a missing path in getFileInfo
// or getListing is an absent field, not an exception; getBlockLocations and
// getContentSummary throw java.io.FileNotFoundException.
//
// Test knobs: Options.Standby answers every call with StandbyException, and
// Options.Denied makes paths behave like directories or files of another
// owner with mode 0700/0600.
package namenode
