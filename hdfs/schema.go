package hdfs

import (
	"github.com/yarn-sidecar/yarn-sidecar/hdfs/ipc"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// locSchema holds the registry message types and fields the block-location
// client uses, resolved once per Client.
type locSchema struct {
	blocksReq, blocksResp                                  protoreflect.MessageType
	blocksSrc, blocksOffset, blocksLength, blocksLocations protoreflect.FieldDescriptor

	listReq, listResp                         protoreflect.MessageType
	listSrc, listStartAfter, listNeedLocation protoreflect.FieldDescriptor
	listDirList, dirPartial, dirRemaining     protoreflect.FieldDescriptor

	stPath, stType, stLength, stLocations protoreflect.FieldDescriptor
	typeDir                               protoreflect.EnumNumber

	lsBlocks              protoreflect.FieldDescriptor
	lbB, lbOffset, lbLocs protoreflect.FieldDescriptor
	extBytes              protoreflect.FieldDescriptor
	dnID, dnLocation      protoreflect.FieldDescriptor
	idHost                protoreflect.FieldDescriptor
}

func newLocSchema() (*locSchema, error) {
	var l ipc.Lookup
	s := &locSchema{}
	d := func(mt protoreflect.MessageType) protoreflect.MessageDescriptor {
		if mt == nil {
			return nil
		}
		return mt.Descriptor()
	}
	s.blocksReq = l.Message("hadoop.hdfs.GetBlockLocationsRequestProto")
	s.blocksResp = l.Message("hadoop.hdfs.GetBlockLocationsResponseProto")
	s.blocksSrc = l.Field(d(s.blocksReq), "src")
	s.blocksOffset = l.Field(d(s.blocksReq), "offset")
	s.blocksLength = l.Field(d(s.blocksReq), "length")
	s.blocksLocations = l.Field(d(s.blocksResp), "locations")

	s.listReq = l.Message("hadoop.hdfs.GetListingRequestProto")
	s.listResp = l.Message("hadoop.hdfs.GetListingResponseProto")
	s.listSrc = l.Field(d(s.listReq), "src")
	s.listStartAfter = l.Field(d(s.listReq), "startAfter")
	s.listNeedLocation = l.Field(d(s.listReq), "needLocation")
	s.listDirList = l.Field(d(s.listResp), "dirList")
	dl := d(l.Message("hadoop.hdfs.DirectoryListingProto"))
	s.dirPartial = l.Field(dl, "partialListing")
	s.dirRemaining = l.Field(dl, "remainingEntries")

	st := d(l.Message("hadoop.hdfs.HdfsFileStatusProto"))
	s.stPath = l.Field(st, "path")
	s.stType = l.Field(st, "fileType")
	s.stLength = l.Field(st, "length")
	s.stLocations = l.Field(st, "locations")
	s.typeDir = l.Enum(s.stType, "IS_DIR")

	s.lsBlocks = l.Field(d(l.Message("hadoop.hdfs.LocatedBlocksProto")), "blocks")
	lb := d(l.Message("hadoop.hdfs.LocatedBlockProto"))
	s.lbB = l.Field(lb, "b")
	s.lbOffset = l.Field(lb, "offset")
	s.lbLocs = l.Field(lb, "locs")
	s.extBytes = l.Field(d(l.Message("hadoop.hdfs.ExtendedBlockProto")), "numBytes")
	dn := d(l.Message("hadoop.hdfs.DatanodeInfoProto"))
	s.dnID = l.Field(dn, "id")
	s.dnLocation = l.Field(dn, "location")
	s.idHost = l.Field(d(l.Message("hadoop.hdfs.DatanodeIDProto")), "hostName")
	if err := l.Err(); err != nil {
		return nil, err
	}
	return s, nil
}

// blocks decodes a LocatedBlocksProto. intern, when non-nil, shares host and
// rack strings across calls, since a listing repeats a few DataNodes many
// times.
func (s *locSchema) blocks(lbs protoreflect.Message, intern map[string]string) []Block {
	list := lbs.Get(s.lsBlocks).List()
	if list.Len() == 0 {
		return []Block{}
	}
	str := func(v string) string {
		if intern == nil {
			return v
		}
		if w, ok := intern[v]; ok {
			return w
		}
		intern[v] = v
		return v
	}
	out := make([]Block, list.Len())
	for i := range out {
		lb := list.Get(i).Message()
		locs := lb.Get(s.lbLocs).List()
		b := Block{
			Offset: int64(lb.Get(s.lbOffset).Uint()),
			Length: int64(lb.Get(s.lbB).Message().Get(s.extBytes).Uint()),
			Hosts:  make([]string, locs.Len()),
			Racks:  make([]string, locs.Len()),
		}
		for j := range b.Hosts {
			dn := locs.Get(j).Message()
			b.Hosts[j] = str(dn.Get(s.dnID).Message().Get(s.idHost).String())
			b.Racks[j] = str(dn.Get(s.dnLocation).String())
		}
		out[i] = b
	}
	return out
}
