// Package hdfs tells the sidecar where a MapReduce job's input lives: the
// job's input files, their blocks, and which DataNodes (and racks) hold each
// block's replicas, summed per node and per node-label partition (Lee thesis
// digest §5.3: locality classes, the remote-read penalty of a partition
// without DataNodes).
//
// Two clients share the NameNode's address list:
//
//   - colinmarc/hdfs for the namespace (Stat, ReadDir, Walk): the library the
//     design names, with its error mapping and HA retry.
//   - a small block-location client of our own (locations.go) on the same
//     NameNode RPC, through hdfs/ipc. colinmarc/hdfs fetches block locations
//     only inside its FileReader and keeps the types internal, so we build
//     the same registry messages it would. We chose the RPC over WebHDFS
//     GETFILEBLOCKLOCATIONS because it needs no second endpoint or port
//     (dfs.namenode.http-address, often firewalled or SPNEGO-only), uses the
//     same address list, HA failover and user as the namespace client, and
//     offers what FileInputFormat itself uses: getListing with needLocation
//     (DistributedFileSystem.listLocatedStatus), which returns a directory's
//     files together with their block locations, about 1,000 replicas per
//     round trip, instead of one request per file.
//
// Input expansion follows FileInputFormat.listStatus: each input path is a
// file or a directory whose children are taken one level deep (deeper with
// Options.Recursive), names starting with "_" or "." are skipped, and a glob
// in the last path component is matched against its parent's listing.
//
// Authentication: simple (the user name) is what the tests cover. Kerberos
// options are passed to colinmarc/hdfs untested here; the block-location
// client does not speak SASL yet, so on a Kerberos cluster JobBlockMap fails
// with ErrKerberosBlockLocations while the namespace calls work.
package hdfs

// Nothing is generated: message types come from the protobuf registry that
// colinmarc/hdfs fills (see hdfs/ipc). `make proto` instead checks, after a
// colinmarc/hdfs or protobuf upgrade, that every type and field still
// resolves.
//go:generate go test -count=1 -run TestRegistry ./ipc/ ../testenv/namenode/
