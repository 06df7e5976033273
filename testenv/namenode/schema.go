package namenode

import (
	"github.com/yarn-sidecar/yarn-sidecar/hdfs/ipc"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// schema holds every message type and field the server reads or writes,
// resolved from the registry once at Start.
type schema struct {
	service protoreflect.ServiceDescriptor

	fileInfoSrc, fileInfoFs protoreflect.FieldDescriptor

	listSrc, listStartAfter, listNeedLocation protoreflect.FieldDescriptor
	listDirList                               protoreflect.FieldDescriptor
	dirList                                   protoreflect.MessageType
	dirPartial, dirRemaining                  protoreflect.FieldDescriptor

	blocksSrc, blocksOffset, blocksLength, blocksLocations protoreflect.FieldDescriptor

	summaryPath, summarySummary                                     protoreflect.FieldDescriptor
	summary                                                         protoreflect.MessageType
	sumLength, sumFiles, sumDirs, sumQuota, sumSpace, sumSpaceQuota protoreflect.FieldDescriptor

	defaultsDefaults                                              protoreflect.FieldDescriptor
	defaults                                                      protoreflect.MessageType
	defBlockSize, defBytesPerChecksum, defPacket, defRepl, defBuf protoreflect.FieldDescriptor

	fsCapacity, fsUsed, fsRemaining, fsUnder, fsCorrupt, fsMissing protoreflect.FieldDescriptor

	status                                                       protoreflect.MessageType
	stType, stPath, stLength, stPerm, stOwner, stGroup           protoreflect.FieldDescriptor
	stMtime, stAtime, stRepl, stBlockSize, stLocations, stFileID protoreflect.FieldDescriptor
	stChildren                                                   protoreflect.FieldDescriptor
	typeDir, typeFile                                            protoreflect.EnumNumber
	perm                                                         protoreflect.MessageType
	permPerm                                                     protoreflect.FieldDescriptor

	located                                           protoreflect.MessageType
	lsFileLength, lsBlocks, lsUnder, lsLast, lsLastOK protoreflect.FieldDescriptor
	block                                             protoreflect.MessageType
	lbB, lbOffset, lbLocs, lbCorrupt, lbToken         protoreflect.FieldDescriptor
	lbStorageTypes, lbStorageIDs                      protoreflect.FieldDescriptor
	disk                                              protoreflect.EnumNumber
	ext                                               protoreflect.MessageType
	extPool, extID, extGen, extBytes                  protoreflect.FieldDescriptor
	token                                             protoreflect.MessageType
	tokID, tokPass, tokKind, tokService               protoreflect.FieldDescriptor
	dnInfo                                            protoreflect.MessageType
	dnID, dnCapacity, dnUsed, dnRemaining, dnLoc      protoreflect.FieldDescriptor
	dnLastUpdate                                      protoreflect.FieldDescriptor
	dnIDType                                          protoreflect.MessageType
	idIP, idHost, idUUID, idXfer, idInfo, idIPC       protoreflect.FieldDescriptor
}

func newSchema() (*schema, error) {
	var l ipc.Lookup
	s := &schema{}
	s.service = l.Service("hadoop.hdfs.ClientNamenodeProtocol")
	d := func(name string) protoreflect.MessageDescriptor {
		mt := l.Message(name)
		if mt == nil {
			return nil
		}
		return mt.Descriptor()
	}

	md := d("hadoop.hdfs.GetFileInfoRequestProto")
	s.fileInfoSrc = l.Field(md, "src")
	s.fileInfoFs = l.Field(d("hadoop.hdfs.GetFileInfoResponseProto"), "fs")

	md = d("hadoop.hdfs.GetListingRequestProto")
	s.listSrc = l.Field(md, "src")
	s.listStartAfter = l.Field(md, "startAfter")
	s.listNeedLocation = l.Field(md, "needLocation")
	s.listDirList = l.Field(d("hadoop.hdfs.GetListingResponseProto"), "dirList")
	s.dirList = l.Message("hadoop.hdfs.DirectoryListingProto")
	md = d("hadoop.hdfs.DirectoryListingProto")
	s.dirPartial = l.Field(md, "partialListing")
	s.dirRemaining = l.Field(md, "remainingEntries")

	md = d("hadoop.hdfs.GetBlockLocationsRequestProto")
	s.blocksSrc = l.Field(md, "src")
	s.blocksOffset = l.Field(md, "offset")
	s.blocksLength = l.Field(md, "length")
	s.blocksLocations = l.Field(d("hadoop.hdfs.GetBlockLocationsResponseProto"), "locations")

	s.summaryPath = l.Field(d("hadoop.hdfs.GetContentSummaryRequestProto"), "path")
	s.summarySummary = l.Field(d("hadoop.hdfs.GetContentSummaryResponseProto"), "summary")
	s.summary = l.Message("hadoop.hdfs.ContentSummaryProto")
	md = d("hadoop.hdfs.ContentSummaryProto")
	s.sumLength = l.Field(md, "length")
	s.sumFiles = l.Field(md, "fileCount")
	s.sumDirs = l.Field(md, "directoryCount")
	s.sumQuota = l.Field(md, "quota")
	s.sumSpace = l.Field(md, "spaceConsumed")
	s.sumSpaceQuota = l.Field(md, "spaceQuota")

	s.defaultsDefaults = l.Field(d("hadoop.hdfs.GetServerDefaultsResponseProto"), "serverDefaults")
	s.defaults = l.Message("hadoop.hdfs.FsServerDefaultsProto")
	md = d("hadoop.hdfs.FsServerDefaultsProto")
	s.defBlockSize = l.Field(md, "blockSize")
	s.defBytesPerChecksum = l.Field(md, "bytesPerChecksum")
	s.defPacket = l.Field(md, "writePacketSize")
	s.defRepl = l.Field(md, "replication")
	s.defBuf = l.Field(md, "fileBufferSize")

	md = d("hadoop.hdfs.GetFsStatsResponseProto")
	s.fsCapacity = l.Field(md, "capacity")
	s.fsUsed = l.Field(md, "used")
	s.fsRemaining = l.Field(md, "remaining")
	s.fsUnder = l.Field(md, "under_replicated")
	s.fsCorrupt = l.Field(md, "corrupt_blocks")
	s.fsMissing = l.Field(md, "missing_blocks")

	s.status = l.Message("hadoop.hdfs.HdfsFileStatusProto")
	md = d("hadoop.hdfs.HdfsFileStatusProto")
	s.stType = l.Field(md, "fileType")
	s.stPath = l.Field(md, "path")
	s.stLength = l.Field(md, "length")
	s.stPerm = l.Field(md, "permission")
	s.stOwner = l.Field(md, "owner")
	s.stGroup = l.Field(md, "group")
	s.stMtime = l.Field(md, "modification_time")
	s.stAtime = l.Field(md, "access_time")
	s.stRepl = l.Field(md, "block_replication")
	s.stBlockSize = l.Field(md, "blocksize")
	s.stLocations = l.Field(md, "locations")
	s.stFileID = l.Field(md, "fileId")
	s.stChildren = l.Field(md, "childrenNum")
	s.typeDir = l.Enum(s.stType, "IS_DIR")
	s.typeFile = l.Enum(s.stType, "IS_FILE")
	s.perm = l.Message("hadoop.hdfs.FsPermissionProto")
	s.permPerm = l.Field(d("hadoop.hdfs.FsPermissionProto"), "perm")

	s.located = l.Message("hadoop.hdfs.LocatedBlocksProto")
	md = d("hadoop.hdfs.LocatedBlocksProto")
	s.lsFileLength = l.Field(md, "fileLength")
	s.lsBlocks = l.Field(md, "blocks")
	s.lsUnder = l.Field(md, "underConstruction")
	s.lsLast = l.Field(md, "lastBlock")
	s.lsLastOK = l.Field(md, "isLastBlockComplete")
	s.block = l.Message("hadoop.hdfs.LocatedBlockProto")
	md = d("hadoop.hdfs.LocatedBlockProto")
	s.lbB = l.Field(md, "b")
	s.lbOffset = l.Field(md, "offset")
	s.lbLocs = l.Field(md, "locs")
	s.lbCorrupt = l.Field(md, "corrupt")
	s.lbToken = l.Field(md, "blockToken")
	s.lbStorageTypes = l.Field(md, "storageTypes")
	s.lbStorageIDs = l.Field(md, "storageIDs")
	s.disk = l.Enum(s.lbStorageTypes, "DISK")
	s.ext = l.Message("hadoop.hdfs.ExtendedBlockProto")
	md = d("hadoop.hdfs.ExtendedBlockProto")
	s.extPool = l.Field(md, "poolId")
	s.extID = l.Field(md, "blockId")
	s.extGen = l.Field(md, "generationStamp")
	s.extBytes = l.Field(md, "numBytes")
	s.token = l.Message("hadoop.common.TokenProto")
	md = d("hadoop.common.TokenProto")
	s.tokID = l.Field(md, "identifier")
	s.tokPass = l.Field(md, "password")
	s.tokKind = l.Field(md, "kind")
	s.tokService = l.Field(md, "service")
	s.dnInfo = l.Message("hadoop.hdfs.DatanodeInfoProto")
	md = d("hadoop.hdfs.DatanodeInfoProto")
	s.dnID = l.Field(md, "id")
	s.dnLoc = l.Field(md, "location")
	s.dnIDType = l.Message("hadoop.hdfs.DatanodeIDProto")
	md = d("hadoop.hdfs.DatanodeIDProto")
	s.idIP = l.Field(md, "ipAddr")
	s.idHost = l.Field(md, "hostName")
	s.idUUID = l.Field(md, "datanodeUuid")
	s.idXfer = l.Field(md, "xferPort")
	s.idInfo = l.Field(md, "infoPort")
	s.idIPC = l.Field(md, "ipcPort")
	if err := l.Err(); err != nil {
		return nil, err
	}
	return s, nil
}
