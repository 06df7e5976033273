package hdfs

import (
	"context"
	"fmt"
	"net/url"
	"path"
	"strings"
)

// SplitInputDirs splits a mapreduce.input.fileinputformat.inputdir value at
// its unescaped commas and unescapes "\,", as FileInputFormat.getInputPaths
// (StringUtils.split and unEscapeString) does.
func SplitInputDirs(v string) []string {
	var out []string
	var cur strings.Builder
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == '\\' && i+1 < len(v):
			i++
			cur.WriteByte(v[i])
		case c == ',':
			out = append(out, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	out = append(out, cur.String())
	kept := out[:0]
	for _, p := range out {
		if p = strings.TrimSpace(p); p != "" {
			kept = append(kept, p)
		}
	}
	return kept
}

// hidden is FileInputFormat's hiddenFileFilter: names starting with "_"
// (such as _SUCCESS and _logs) or "." are not input.
func hidden(name string) bool {
	return strings.HasPrefix(name, "_") || strings.HasPrefix(name, ".")
}

// hasGlob reports whether s has a character Hadoop's GlobPattern treats as
// special.
func hasGlob(s string) bool { return strings.ContainsAny(s, "*?[{") }

// namespacePath turns an input path into an absolute HDFS path: it drops an
// hdfs:// scheme and authority, and resolves a relative path against the
// user's home directory, as FileSystem.makeQualified does.
func (c *Client) namespacePath(p string) (string, error) {
	if strings.Contains(p, "://") {
		u, err := url.Parse(p)
		if err != nil {
			return "", fmt.Errorf("hdfs: input path %q: %w", p, err)
		}
		if u.Scheme != "hdfs" {
			return "", fmt.Errorf("hdfs: input path %q is not on HDFS (scheme %s)", p, u.Scheme)
		}
		p = u.Path
	}
	if !strings.HasPrefix(p, "/") {
		p = path.Join("/user", c.opts.User, p)
	}
	return path.Clean(p), nil
}

// JobBlockMap returns where the input of a job lives. inputPaths are the
// job's input paths (SplitInputDirs of mapreduce.input.fileinputformat.inputdir).
// A file is input as it is; a directory contributes its non-hidden files,
// one level deep unless Options.Recursive; a glob in the last component
// matches the parent's non-hidden children. A file of no blocks counts as a
// file with no bytes. A missing or forbidden input path fails the whole map
// (an *os.PathError matching os.ErrNotExist or os.ErrPermission), as the job
// itself would fail to start.
func (c *Client) JobBlockMap(ctx context.Context, inputPaths []string) (*BlockMap, error) {
	m := NewBlockMap()
	for _, raw := range inputPaths {
		p, err := c.namespacePath(raw)
		if err != nil {
			return nil, err
		}
		if err := c.addInput(ctx, m, p); err != nil {
			return nil, fmt.Errorf("hdfs: input %s: %w", raw, err)
		}
	}
	return m, nil
}

func (c *Client) addInput(ctx context.Context, m *BlockMap, p string) error {
	dir, base := path.Split(p)
	if hasGlob(dir) {
		return fmt.Errorf("glob outside the last path component is not supported: %s", p)
	}
	if hasGlob(base) {
		matched := 0
		err := c.ListLocated(ctx, path.Clean(dir), func(e Entry) error {
			ok, err := path.Match(base, e.Name)
			if err != nil || !ok || hidden(e.Name) {
				return err
			}
			matched++
			if e.IsDir {
				return c.addDir(ctx, m, path.Join(dir, e.Name))
			}
			m.AddFile(e.Blocks)
			return nil
		})
		if err != nil {
			return err
		}
		if matched == 0 {
			// FileInputFormat: "Input Pattern ... matches 0 files".
			return fmt.Errorf("input pattern %s matches 0 files", p)
		}
		return nil
	}
	fi, err := c.Stat(p)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		blocks, err := c.FileBlocks(ctx, p)
		if err != nil {
			return err
		}
		m.AddFile(blocks)
		return nil
	}
	return c.addDir(ctx, m, p)
}

// addDir adds the non-hidden files of dir, and of its subdirectories with
// Options.Recursive.
func (c *Client) addDir(ctx context.Context, m *BlockMap, dir string) error {
	var subdirs []string
	err := c.ListLocated(ctx, dir, func(e Entry) error {
		if hidden(e.Name) {
			return nil
		}
		if e.IsDir {
			subdirs = append(subdirs, path.Join(dir, e.Name))
			return nil
		}
		m.AddFile(e.Blocks)
		return nil
	})
	if err != nil {
		return err
	}
	for _, d := range subdirs {
		if !c.opts.Recursive {
			m.SkippedDirs++
			continue
		}
		if err := c.addDir(ctx, m, d); err != nil {
			return err
		}
	}
	return nil
}
