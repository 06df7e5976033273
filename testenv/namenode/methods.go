package namenode

import (
	"fmt"
	"path"

	"github.com/yarn-sidecar/yarn-sidecar/hdfs/ipc"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// exception is a Java exception thrown by a method: it becomes the
// exceptionClassName and errorMsg of an ERROR response.
type exception struct {
	class, msg string
}

type handlerFunc func(sess *session, req, resp protoreflect.Message) *exception

// handler returns the implementation of a ClientProtocol method, or nil.
func (srv *Server) handler(method string) handlerFunc {
	switch method {
	case "getFileInfo":
		return srv.getFileInfo
	case "getListing":
		return srv.getListing
	case "getBlockLocations":
		return srv.getBlockLocations
	case "getContentSummary":
		return srv.getContentSummary
	case "getServerDefaults":
		return srv.getServerDefaults
	case "getFsStats":
		return srv.getFsStats
	case "renewLease":
		// colinmarc/hdfs renews leases every second; with no open writers
		// there is nothing to renew.
		return func(*session, protoreflect.Message, protoreflect.Message) *exception { return nil }
	}
	return nil
}

func notFound(p string) *exception {
	return &exception{ipc.FileNotFoundException, "File does not exist: " + p}
}

func (srv *Server) accessDenied(sess *session, p, access string) *exception {
	d := srv.deniedAt(p, access == "")
	if d == "" {
		return nil
	}
	if access == "" {
		access = "EXECUTE"
	}
	f, _ := srv.fs.Stat(d)
	mode := "-rw-------"
	if f.IsDir {
		mode = "drwx------"
	}
	// FSPermissionChecker's message.
	return &exception{ipc.AccessControlException, fmt.Sprintf(
		"Permission denied: user=%s, access=%s, inode=%q:%s:%s:%s", sess.user, access, d, f.Owner, f.Group, mode)}
}

// getFileInfo answers with the status, or with no status at all for a
// missing path (FSDirStatAndListingOp.getFileInfo returns null).
func (srv *Server) getFileInfo(sess *session, req, resp protoreflect.Message) *exception {
	p, ok := cleanPath(req.Get(srv.s.fileInfoSrc).String())
	if !ok {
		return &exception{"org.apache.hadoop.fs.InvalidPathException", "Invalid path name"}
	}
	if e := srv.accessDenied(sess, p, ""); e != nil {
		return e
	}
	f, ok := srv.fs.Stat(p)
	if !ok {
		return nil
	}
	resp.Set(srv.s.fileInfoFs, protoreflect.ValueOfMessage(srv.fileStatus(f, "", false)))
	return nil
}

// getListing pages a directory after startAfter. A page holds at most
// LsLimit entries; with locations it also stops once the replicas listed
// reach LsLimit (FSDirStatAndListingOp.getListing's locationBudget), but
// always holds at least one entry. A file lists as itself; a missing path
// leaves dirList unset.
func (srv *Server) getListing(sess *session, req, resp protoreflect.Message) *exception {
	p, ok := cleanPath(req.Get(srv.s.listSrc).String())
	if !ok {
		return &exception{"org.apache.hadoop.fs.InvalidPathException", "Invalid path name"}
	}
	f, ok := srv.fs.Stat(p)
	if !ok {
		if e := srv.accessDenied(sess, p, ""); e != nil {
			return e
		}
		return nil
	}
	access := "READ"
	if f.IsDir {
		access = "READ_EXECUTE"
	}
	if e := srv.accessDenied(sess, p, access); e != nil {
		return e
	}
	needLoc := req.Get(srv.s.listNeedLocation).Bool()
	dl := srv.s.dirList.New()
	list := dl.Mutable(srv.s.dirPartial).List()
	if !f.IsDir {
		list.Append(protoreflect.ValueOfMessage(srv.fileStatus(f, path.Base(p), needLoc)))
		dl.Set(srv.s.dirRemaining, protoreflect.ValueOfUint32(0))
		resp.Set(srv.s.listDirList, protoreflect.ValueOfMessage(dl))
		return nil
	}
	after := string(req.Get(srv.s.listStartAfter).Bytes())
	page, remaining, _ := srv.fs.ListPage(p, after, srv.opts.LsLimit)
	budget := srv.opts.LsLimit
	n := 0
	for _, c := range page {
		if budget <= 0 {
			break
		}
		list.Append(protoreflect.ValueOfMessage(srv.fileStatus(c, path.Base(c.Path), needLoc)))
		n++
		if needLoc && !c.IsDir {
			for _, b := range c.Blocks {
				budget -= len(b.Hosts)
			}
		}
	}
	remaining += len(page) - n
	dl.Set(srv.s.dirRemaining, protoreflect.ValueOfUint32(uint32(remaining)))
	resp.Set(srv.s.listDirList, protoreflect.ValueOfMessage(dl))
	return nil
}

// getBlockLocations returns the blocks overlapping [offset, offset+length).
func (srv *Server) getBlockLocations(sess *session, req, resp protoreflect.Message) *exception {
	p, ok := cleanPath(req.Get(srv.s.blocksSrc).String())
	if !ok {
		return &exception{"org.apache.hadoop.fs.InvalidPathException", "Invalid path name"}
	}
	if e := srv.accessDenied(sess, p, "READ"); e != nil {
		return e
	}
	f, ok := srv.fs.Stat(p)
	if !ok {
		return notFound(p)
	}
	if f.IsDir {
		return &exception{ipc.FileNotFoundException, "Path is not a file: " + p}
	}
	off := int64(req.Get(srv.s.blocksOffset).Uint())
	length := int64(req.Get(srv.s.blocksLength).Uint())
	// FSNamesystem.getBlockLocations rejects what Java reads as negative.
	if off < 0 {
		return &exception{"org.apache.hadoop.HadoopIllegalArgumentException", "Negative offset is not supported. File: " + p}
	}
	if length < 0 {
		return &exception{"org.apache.hadoop.HadoopIllegalArgumentException", "Negative length is not supported. File: " + p}
	}
	resp.Set(srv.s.blocksLocations, protoreflect.ValueOfMessage(srv.locatedBlocks(f, off, length)))
	return nil
}

// getContentSummary totals the tree under a path.
func (srv *Server) getContentSummary(sess *session, req, resp protoreflect.Message) *exception {
	p, ok := cleanPath(req.Get(srv.s.summaryPath).String())
	if !ok {
		return &exception{"org.apache.hadoop.fs.InvalidPathException", "Invalid path name"}
	}
	if e := srv.accessDenied(sess, p, "READ_EXECUTE"); e != nil {
		return e
	}
	f, ok := srv.fs.Stat(p)
	if !ok {
		return notFound(p)
	}
	var length, space, files, dirs uint64
	var walk func(f hdfsFile)
	walk = func(f hdfsFile) {
		if !f.IsDir {
			files++
			length += uint64(f.Size)
			for _, b := range f.Blocks {
				space += uint64(b.Length) * uint64(len(b.Hosts))
			}
			return
		}
		dirs++
		kids, _ := srv.fs.List(f.Path)
		for _, k := range kids {
			walk(k)
		}
	}
	walk(f)
	cs := srv.s.summary.New()
	cs.Set(srv.s.sumLength, protoreflect.ValueOfUint64(length))
	cs.Set(srv.s.sumFiles, protoreflect.ValueOfUint64(files))
	cs.Set(srv.s.sumDirs, protoreflect.ValueOfUint64(dirs))
	// -1 is HdfsConstants.QUOTA_RESET (no quota), sent as a uint64.
	cs.Set(srv.s.sumQuota, protoreflect.ValueOfUint64(^uint64(0)))
	cs.Set(srv.s.sumSpace, protoreflect.ValueOfUint64(space))
	cs.Set(srv.s.sumSpaceQuota, protoreflect.ValueOfUint64(^uint64(0)))
	resp.Set(srv.s.summarySummary, protoreflect.ValueOfMessage(cs))
	return nil
}

// getServerDefaults answers Hadoop 3's hdfs-default.xml values.
func (srv *Server) getServerDefaults(_ *session, _, resp protoreflect.Message) *exception {
	d := srv.s.defaults.New()
	d.Set(srv.s.defBlockSize, protoreflect.ValueOfUint64(128<<20))
	d.Set(srv.s.defBytesPerChecksum, protoreflect.ValueOfUint32(512))
	d.Set(srv.s.defPacket, protoreflect.ValueOfUint32(64<<10))
	d.Set(srv.s.defRepl, protoreflect.ValueOfUint32(3))
	d.Set(srv.s.defBuf, protoreflect.ValueOfUint32(4096))
	resp.Set(srv.s.defaultsDefaults, protoreflect.ValueOfMessage(d))
	return nil
}

// getFsStats reports usage of the namespace's blocks; capacity is not
// modelled, so it equals what is used.
func (srv *Server) getFsStats(_ *session, _, resp protoreflect.Message) *exception {
	var used uint64
	var walk func(p string)
	walk = func(p string) {
		kids, _ := srv.fs.List(p)
		for _, k := range kids {
			if k.IsDir {
				walk(k.Path)
				continue
			}
			for _, b := range k.Blocks {
				used += uint64(b.Length) * uint64(len(b.Hosts))
			}
		}
	}
	walk("/")
	resp.Set(srv.s.fsCapacity, protoreflect.ValueOfUint64(used))
	resp.Set(srv.s.fsUsed, protoreflect.ValueOfUint64(used))
	resp.Set(srv.s.fsRemaining, protoreflect.ValueOfUint64(0))
	resp.Set(srv.s.fsUnder, protoreflect.ValueOfUint64(0))
	resp.Set(srv.s.fsCorrupt, protoreflect.ValueOfUint64(0))
	resp.Set(srv.s.fsMissing, protoreflect.ValueOfUint64(0))
	return nil
}
