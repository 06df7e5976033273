package hdfsns

import (
	"fmt"
	"hash/fnv"
)

// Default DataNode ports of Hadoop 3 (hdfs-default.xml dfs.datanode.address,
// dfs.datanode.http.address, dfs.datanode.ipc.address).
const (
	DefaultXferPort = 9866
	DefaultInfoPort = 9864
	DefaultIPCPort  = 9867
	// DefaultRack is Hadoop's NetworkTopology.DEFAULT_RACK.
	DefaultRack = "/default-rack"
)

// Datanode is a DataNode's identity as the NameNode reports it with every
// block location (DatanodeIDProto and DatanodeInfoProto.location).
type Datanode struct {
	Host     string // host name, as Block.Hosts holds it
	IPAddr   string
	XferPort int
	InfoPort int
	IPCPort  int
	Rack     string // network location, e.g. "/rack1"
	UUID     string
}

// AddDatanode records a DataNode's identity; fields left zero get the
// defaults Datanode(host) would give.
func (fs *FS) AddDatanode(dn Datanode) {
	def := defaultDatanode(dn.Host)
	if dn.IPAddr == "" {
		dn.IPAddr = def.IPAddr
	}
	if dn.XferPort == 0 {
		dn.XferPort = def.XferPort
	}
	if dn.InfoPort == 0 {
		dn.InfoPort = def.InfoPort
	}
	if dn.IPCPort == 0 {
		dn.IPCPort = def.IPCPort
	}
	if dn.Rack == "" {
		dn.Rack = def.Rack
	}
	if dn.UUID == "" {
		dn.UUID = def.UUID
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.datanodes[dn.Host] = dn
}

// Datanode returns the identity of the DataNode on host. Hosts never added
// get a stable made-up identity (an address in 10.0.0.0/8 derived from the
// name, default ports, the default rack), so scenarios that only name hosts
// still produce complete block locations.
func (fs *FS) Datanode(host string) Datanode {
	fs.mu.RLock()
	dn, ok := fs.datanodes[host]
	fs.mu.RUnlock()
	if ok {
		return dn
	}
	return defaultDatanode(host)
}

func defaultDatanode(host string) Datanode {
	h := fnv.New32a()
	h.Write([]byte(host))
	s := h.Sum32()
	return Datanode{
		Host:     host,
		IPAddr:   fmt.Sprintf("10.%d.%d.%d", byte(s>>16), byte(s>>8), 1+byte(s)%254),
		XferPort: DefaultXferPort,
		InfoPort: DefaultInfoPort,
		IPCPort:  DefaultIPCPort,
		Rack:     DefaultRack,
		UUID:     fmt.Sprintf("dn-%08x-%s", s, host),
	}
}
