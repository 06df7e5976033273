package namenode

import (
	"math"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/hdfsns"
	"google.golang.org/protobuf/reflect/protoreflect"
)

type hdfsFile = hdfsns.File

// generationStamp is the stamp every block carries; the namespace does not
// model appends or recovery, which are what change it.
const generationStamp = 1001

// fileStatus builds an HdfsFileStatusProto. name is the local name a
// listing carries ("" for getFileInfo, as HdfsFileStatus.EMPTY_NAME);
// located adds the file's blocks, as getListing with needLocation does.
func (srv *Server) fileStatus(f hdfsns.File, name string, located bool) protoreflect.Message {
	s := srv.s
	m := s.status.New()
	perm := s.perm.New()
	perm.Set(s.permPerm, protoreflect.ValueOfUint32(f.Perm))
	m.Set(s.stPath, protoreflect.ValueOfBytes([]byte(name)))
	m.Set(s.stPerm, protoreflect.ValueOfMessage(perm))
	m.Set(s.stOwner, protoreflect.ValueOfString(f.Owner))
	m.Set(s.stGroup, protoreflect.ValueOfString(f.Group))
	m.Set(s.stMtime, protoreflect.ValueOfUint64(uint64(f.ModTime)))
	m.Set(s.stAtime, protoreflect.ValueOfUint64(uint64(f.ModTime)))
	m.Set(s.stFileID, protoreflect.ValueOfUint64(fileID(f.Path)))
	if f.IsDir {
		m.Set(s.stType, protoreflect.ValueOfEnum(s.typeDir))
		m.Set(s.stLength, protoreflect.ValueOfUint64(0))
		_, n, _ := srv.fs.ListPage(f.Path, "", 0)
		m.Set(s.stChildren, protoreflect.ValueOfInt32(int32(n)))
		return m
	}
	m.Set(s.stType, protoreflect.ValueOfEnum(s.typeFile))
	m.Set(s.stLength, protoreflect.ValueOfUint64(uint64(f.Size)))
	m.Set(s.stBlockSize, protoreflect.ValueOfUint64(uint64(f.BlockSize)))
	m.Set(s.stRepl, protoreflect.ValueOfUint32(uint32(replication(f))))
	if located {
		m.Set(s.stLocations, protoreflect.ValueOfMessage(srv.locatedBlocks(f, 0, f.Size)))
	}
	return m
}

// replication is the file's replication factor: the replica count of its
// first block, or HDFS's default 3 for a file without blocks.
func replication(f hdfsns.File) int {
	if len(f.Blocks) > 0 {
		return len(f.Blocks[0].Hosts)
	}
	return 3
}

// fileID is a stable inode id for a path (FNV-1a), above the reserved ids.
func fileID(p string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(p); i++ {
		h ^= uint64(p[i])
		h *= 1099511628211
	}
	return 16386 + h%(1<<40)
}

// locatedBlocks builds the LocatedBlocksProto of the blocks overlapping
// [off, off+length), as BlockManager.createLocatedBlocks does for a
// complete file.
func (srv *Server) locatedBlocks(f hdfsns.File, off, length int64) protoreflect.Message {
	s := srv.s
	lb := s.located.New()
	lb.Set(s.lsFileLength, protoreflect.ValueOfUint64(uint64(f.Size)))
	lb.Set(s.lsUnder, protoreflect.ValueOfBool(false))
	lb.Set(s.lsLastOK, protoreflect.ValueOfBool(true))
	list := lb.Mutable(s.lsBlocks).List()
	if length <= 0 {
		length = 1
	}
	end := off + length
	if length > math.MaxInt64-off {
		end = math.MaxInt64
	}
	for _, b := range f.Blocks {
		if b.Offset+b.Length <= off {
			continue
		}
		if b.Offset >= end {
			break
		}
		list.Append(protoreflect.ValueOfMessage(srv.locatedBlock(b)))
	}
	if n := len(f.Blocks); n > 0 {
		// The last block is often the last one listed; share that message
		// (both are only marshalled) instead of building it twice.
		last := f.Blocks[n-1]
		if k := list.Len(); k > 0 && list.Get(k-1).Message().Get(s.lbOffset).Uint() == uint64(last.Offset) {
			lb.Set(s.lsLast, list.Get(k-1))
		} else {
			lb.Set(s.lsLast, protoreflect.ValueOfMessage(srv.locatedBlock(last)))
		}
	}
	return lb
}

func (srv *Server) locatedBlock(b hdfsns.Block) protoreflect.Message {
	s := srv.s
	m := s.block.New()
	ext := s.ext.New()
	ext.Set(s.extPool, protoreflect.ValueOfString(srv.opts.BlockPoolID))
	ext.Set(s.extID, protoreflect.ValueOfUint64(b.ID))
	ext.Set(s.extGen, protoreflect.ValueOfUint64(generationStamp))
	ext.Set(s.extBytes, protoreflect.ValueOfUint64(uint64(b.Length)))
	m.Set(s.lbB, protoreflect.ValueOfMessage(ext))
	m.Set(s.lbOffset, protoreflect.ValueOfUint64(uint64(b.Offset)))
	m.Set(s.lbCorrupt, protoreflect.ValueOfBool(false))
	m.Set(s.lbToken, protoreflect.ValueOfMessage(srv.emptyToken))
	locs := m.Mutable(s.lbLocs).List()
	types := m.Mutable(s.lbStorageTypes).List()
	ids := m.Mutable(s.lbStorageIDs).List()
	for _, h := range b.Hosts {
		dn, uuid := srv.datanodeInfo(h)
		locs.Append(protoreflect.ValueOfMessage(dn))
		types.Append(protoreflect.ValueOfEnum(s.disk))
		ids.Append(protoreflect.ValueOfString("DS-" + uuid))
	}
	return m
}

// datanodeInfo returns the (shared, read-only) DatanodeInfoProto of host,
// cached by identity so a DataNode re-added with a new rack is not stale.
func (srv *Server) datanodeInfo(host string) (protoreflect.Message, string) {
	dn := srv.fs.Datanode(host)
	srv.dnMu.Lock()
	defer srv.dnMu.Unlock()
	if m, ok := srv.dnCache[dn]; ok {
		return m, dn.UUID
	}
	s := srv.s
	id := s.dnIDType.New()
	id.Set(s.idIP, protoreflect.ValueOfString(dn.IPAddr))
	id.Set(s.idHost, protoreflect.ValueOfString(dn.Host))
	id.Set(s.idUUID, protoreflect.ValueOfString(dn.UUID))
	id.Set(s.idXfer, protoreflect.ValueOfUint32(uint32(dn.XferPort)))
	id.Set(s.idInfo, protoreflect.ValueOfUint32(uint32(dn.InfoPort)))
	id.Set(s.idIPC, protoreflect.ValueOfUint32(uint32(dn.IPCPort)))
	m := s.dnInfo.New()
	m.Set(s.dnID, protoreflect.ValueOfMessage(id))
	m.Set(s.dnLoc, protoreflect.ValueOfString(dn.Rack))
	srv.dnCache[dn] = m
	return m, dn.UUID
}

// newEmptyToken builds the block token every block carries: empty, as with
// dfs.block.access.token.enable=false. One message is shared by all blocks.
func (s *schema) newEmptyToken() protoreflect.Message {
	tok := s.token.New()
	tok.Set(s.tokID, protoreflect.ValueOfBytes([]byte{}))
	tok.Set(s.tokPass, protoreflect.ValueOfBytes([]byte{}))
	tok.Set(s.tokKind, protoreflect.ValueOfString(""))
	tok.Set(s.tokService, protoreflect.ValueOfString(""))
	return tok
}
