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
	"strings"
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
}

// New returns a namespace holding only "/".
func New() *FS {
	fs := &FS{files: map[string]*File{}, nextBlk: 1073741825}
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
	fs.files[p] = f
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
			fs.files[d] = &File{Path: d, IsDir: true, Owner: "hadoop", Group: "supergroup", Perm: 0755}
		}
		if d == "/" {
			return
		}
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
	fs.mu.RLock()
	defer fs.mu.RUnlock()
	p = path.Clean("/" + p)
	d, ok := fs.files[p]
	if !ok || !d.IsDir {
		return nil, false
	}
	prefix := p
	if prefix != "/" {
		prefix += "/"
	}
	var out []File
	for k, f := range fs.files {
		if k != p && strings.HasPrefix(k, prefix) && !strings.Contains(k[len(prefix):], "/") {
			out = append(out, *f)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, true
}
