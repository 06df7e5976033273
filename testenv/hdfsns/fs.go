// Package hdfsns is the mini cluster's HDFS namespace: files, their blocks and
// where each block's replicas live. The scheduler model reads it for task
// locality and the mini NameNode serves it over Hadoop IPC, so locality in the
// simulation and in the sidecar's block map come from one place.
//
// It is a stand-in for a real NameNode's namespace, held in memory.
package hdfsns

import (
	"path"
	"sort"
	"sync"
)

// Block is one HDFS block of a file.
type Block struct {
	ID     uint64
	Offset int64
	Length int64
	// Hosts hold the replicas: DataNode host names, first replica first.
	Hosts []string
}

// File is a regular file or a directory.
type File struct {
	Path      string
	IsDir     bool
	Size      int64
	BlockSize int64
	Owner     string
	Group     string
	Perm      uint32 // e.g. 0644
	ModTime   int64  // ms since epoch
	Blocks    []Block
}

// FS is a concurrency-safe in-memory namespace.
type FS struct {
	mu      sync.RWMutex
	files   map[string]*File
	nextBlk uint64
	// kids indexes each directory's children so a listing costs the size of
	// the directory, not of the namespace: the mini NameNode pages a
	// 100,000-entry directory a thousand names at a time.
	kids      map[string]*children
	datanodes map[string]Datanode
}

// children is one directory's child names; sorted is rebuilt lazily after
// inserts, because sorting on every AddFile would make bulk loads quadratic.
type children struct {
	names  map[string]struct{}
	sorted []string
	dirty  bool
}

// New returns a namespace holding only "/".
func New() *FS {
	fs := &FS{
		files:     map[string]*File{},
		nextBlk:   1073741825,
		kids:      map[string]*children{},
		datanodes: map[string]Datanode{},
	}
	fs.files["/"] = &File{Path: "/", IsDir: true, Owner: "hdfs", Group: "supergroup", Perm: 0755}
	return fs
}

// AddFile creates a file (and its parent directories) whose blocks have the
// given replica hosts; len(replicas) is the number of blocks. Sizes: every
// block is blockSize except the last, which holds the remainder of size.
func (fs *FS) AddFile(p string, size, blockSize int64, replicas [][]string) *File {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	p = path.Clean("/" + p)
	fs.mkdirAllLocked(path.Dir(p))
	f := &File{Path: p, Size: size, BlockSize: blockSize, Owner: "hadoop", Group: "supergroup", Perm: 0644}
	var off int64
	for _, hosts := range replicas {
		n := blockSize
		if size-off < n {
			n = size - off
		}
		f.Blocks = append(f.Blocks, Block{ID: fs.nextBlk, Offset: off, Length: n, Hosts: append([]string(nil), hosts...)})
		fs.nextBlk++
		off += n
	}
	fs.putLocked(f)
	return f
}

// Mkdir creates a directory and its parents.
func (fs *FS) Mkdir(p string) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.mkdirAllLocked(path.Clean("/" + p))
}

func (fs *FS) mkdirAllLocked(p string) {
	for d := p; ; d = path.Dir(d) {
		if _, ok := fs.files[d]; !ok {
			fs.putLocked(&File{Path: d, IsDir: true, Owner: "hadoop", Group: "supergroup", Perm: 0755})
		}
		if d == "/" {
			return
		}
	}
}

// putLocked stores f and indexes it under its parent.
func (fs *FS) putLocked(f *File) {
	fs.files[f.Path] = f
	if f.Path == "/" {
		return
	}
	dir, name := path.Split(f.Path)
	dir = path.Clean(dir)
	c := fs.kids[dir]
	if c == nil {
		c = &children{names: map[string]struct{}{}}
		fs.kids[dir] = c
	}
	if _, ok := c.names[name]; !ok {
		c.names[name] = struct{}{}
		c.dirty = true
	}
}

// Stat returns the file or directory at p.
func (fs *FS) Stat(p string) (File, bool) {
	fs.mu.RLock()
	defer fs.mu.RUnlock()
	f, ok := fs.files[path.Clean("/"+p)]
	if !ok {
		return File{}, false
	}
	return *f, true
}

// List returns the children of directory p sorted by name (HDFS lists in
// byte order), or false when p is not a directory.
func (fs *FS) List(p string) ([]File, bool) {
	out, _, ok := fs.ListPage(p, "", -1)
	return out, ok
}

// ListPage returns at most limit children of directory p whose names sort
// after startAfter (all of them when limit < 0), and how many remain after
// the page — the shape of the NameNode's getListing. False when p is not a
// directory.
func (fs *FS) ListPage(p, startAfter string, limit int) (page []File, remaining int, ok bool) {
	p = path.Clean("/" + p)
	names, ok := fs.sortedChildren(p)
	if !ok {
		return nil, 0, false
	}
	fs.mu.RLock()
	defer fs.mu.RUnlock()
	i := 0
	if startAfter != "" {
		i = sort.Search(len(names), func(k int) bool { return names[k] > startAfter })
	}
	end := len(names)
	if limit >= 0 && i+limit < end {
		end = i + limit
	}
	page = make([]File, 0, end-i)
	for _, n := range names[i:end] {
		page = append(page, *fs.files[path.Join(p, n)])
	}
	return page, len(names) - end, true
}

// sortedChildren returns p's child names in byte order, sorting them first
// if files were added since the last listing.
func (fs *FS) sortedChildren(p string) ([]string, bool) {
	fs.mu.RLock()
	d, ok := fs.files[p]
	if !ok || !d.IsDir {
		fs.mu.RUnlock()
		return nil, false
	}
	c := fs.kids[p]
	if c == nil {
		fs.mu.RUnlock()
		return nil, true
	}
	if !c.dirty {
		s := c.sorted
		fs.mu.RUnlock()
		return s, true
	}
	fs.mu.RUnlock()

	fs.mu.Lock()
	defer fs.mu.Unlock()
	if c.dirty {
		s := make([]string, 0, len(c.names))
		for n := range c.names {
			s = append(s, n)
		}
		sort.Strings(s)
		// A fresh slice, never appended to, so callers holding the old one
		// keep a consistent view.
		c.sorted, c.dirty = s, false
	}
	return c.sorted, true
}
