// Package csxml edits a capacity-scheduler.xml the way an admin would: only
// the properties that change are touched (a value replaced, a property
// removed, a new one added before </configuration>); comments, order,
// layout and every other byte stay as they were. It also renders a whole
// file for a configuration read without one (rebuilt from the RM's
// scheduler answer) and writes the unified diff between two versions.
//
// It works on the text, not on a parsed tree: encoding/xml would drop the
// comments and the admin's layout, which Ambari, Cloudera Manager and people
// reading the file rely on.
package csxml

import (
	"bytes"
	"fmt"
	"html"
	"regexp"
	"sort"
	"strings"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

var (
	propertyRE = regexp.MustCompile(`(?s)<property\b[^>]*>.*?</property>`)
	commentRE  = regexp.MustCompile(`(?s)<!--.*?-->`)
	nameRE     = regexp.MustCompile(`(?s)<name>(.*?)</name>`)
	valueRE    = regexp.MustCompile(`(?s)<value>(.*?)</value>|<value\s*/>`)
	endRE      = regexp.MustCompile(`</configuration>`)
)

// Changes lists what turns from into to: properties to set (new or with
// another value) and properties to remove.
func Changes(from, to schedconf.Conf) (set map[string]string, unset []string) {
	set = map[string]string{}
	for k, v := range to {
		if old, ok := from[k]; !ok || old != v {
			set[k] = v
		}
	}
	for k := range from {
		if _, ok := to[k]; !ok {
			unset = append(unset, k)
		}
	}
	sort.Strings(unset)
	return set, unset
}

type span struct{ start, end int }

// Edit returns src with the properties in set given their values (every
// occurrence of a property the file repeats; appended before
// </configuration> when absent) and the properties in unset removed, with
// their line when they stand alone on it. Properties inside comments are
// left alone.
func Edit(src []byte, set map[string]string, unset []string) ([]byte, error) {
	end := endRE.FindAllIndex(src, -1)
	if len(end) == 0 {
		return nil, fmt.Errorf("no </configuration> in the file")
	}
	comments := commentRE.FindAllIndex(src, -1)
	inComment := func(at int) bool {
		for _, c := range comments {
			if at >= c[0] && at < c[1] {
				return true
			}
		}
		return false
	}
	drop := map[string]bool{}
	for _, k := range unset {
		drop[k] = true
	}
	seen := map[string]bool{}
	var out bytes.Buffer
	last := 0
	lastBlock := ""
	lastIndent := "  "
	for _, m := range propertyRE.FindAllIndex(src, -1) {
		if inComment(m[0]) {
			continue
		}
		block := src[m[0]:m[1]]
		nm := nameRE.FindSubmatch(block)
		if nm == nil {
			continue
		}
		name := strings.TrimSpace(html.UnescapeString(string(nm[1])))
		lastBlock, lastIndent = string(block), indentBefore(src, m[0])
		switch {
		case drop[name]:
			s, e := lineOf(src, m[0], m[1])
			out.Write(src[last:s])
			last = e
		case hasKey(set, name):
			seen[name] = true
			out.Write(src[last:m[0]])
			out.Write(setValue(block, set[name]))
			last = m[1]
		}
	}
	var added []string
	for k := range set {
		if !seen[k] {
			added = append(added, k)
		}
	}
	sort.Strings(added)
	closeAt := end[len(end)-1][0]
	if closeAt < last {
		return nil, fmt.Errorf("</configuration> before the last property")
	}
	out.Write(src[last:closeAt])
	if len(added) > 0 {
		// Start the new properties on their own line, in the file's style:
		// one line each when its properties are one line each.
		if b := out.Bytes(); len(b) > 0 && b[len(b)-1] != '\n' {
			trimmed := bytes.TrimRight(b, " \t")
			if len(trimmed) == 0 || trimmed[len(trimmed)-1] != '\n' {
				out.WriteByte('\n')
			} else {
				out.Truncate(len(trimmed))
			}
		}
		oneLine := lastBlock != "" && !strings.Contains(lastBlock, "\n")
		for _, k := range added {
			out.WriteString(renderProperty(k, set[k], lastIndent, oneLine))
		}
	}
	out.Write(src[closeAt:])
	return out.Bytes(), nil
}

func hasKey(m map[string]string, k string) bool { _, ok := m[k]; return ok }

// setValue replaces the value of one <property> block.
func setValue(block []byte, v string) []byte {
	esc := escape(v)
	if loc := valueRE.FindSubmatchIndex(block); loc != nil {
		var b bytes.Buffer
		b.Write(block[:loc[0]])
		b.WriteString("<value>" + esc + "</value>")
		b.Write(block[loc[1]:])
		return b.Bytes()
	}
	// No <value>: add one after </name>.
	i := bytes.Index(block, []byte("</name>")) + len("</name>")
	var b bytes.Buffer
	b.Write(block[:i])
	b.WriteString("<value>" + esc + "</value>")
	b.Write(block[i:])
	return b.Bytes()
}

// lineOf widens [s, e) to whole lines when nothing else stands on them.
func lineOf(src []byte, s, e int) (int, int) {
	ls := bytes.LastIndexByte(src[:s], '\n') + 1
	if len(bytes.TrimSpace(src[ls:s])) != 0 {
		return s, e
	}
	le := e
	for le < len(src) && (src[le] == ' ' || src[le] == '\t' || src[le] == '\r') {
		le++
	}
	if le < len(src) && src[le] == '\n' {
		return ls, le + 1
	}
	if le == len(src) {
		return ls, le
	}
	return s, e
}

// indentBefore is the whitespace that starts the line at i.
func indentBefore(src []byte, i int) string {
	ls := bytes.LastIndexByte(src[:i], '\n') + 1
	ind := src[ls:i]
	if len(bytes.TrimSpace(ind)) != 0 {
		return "  "
	}
	return string(ind)
}

func renderProperty(k, v, indent string, oneLine bool) string {
	if oneLine {
		return fmt.Sprintf("%s<property><name>%s</name><value>%s</value></property>\n", indent, escape(k), escape(v))
	}
	return fmt.Sprintf("%s<property>\n%s  <name>%s</name>\n%s  <value>%s</value>\n%s</property>\n", indent, indent, escape(k), indent, escape(v), indent)
}

func escape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Render writes a whole capacity-scheduler.xml for conf, properties in
// name order: the "live file" when the configuration was read from the RM
// (scheduler-conf, or rebuilt from its scheduler answer) rather than from
// the file itself.
func Render(conf schedconf.Conf) []byte {
	keys := make([]string, 0, len(conf))
	for k := range conf {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b bytes.Buffer
	b.WriteString("<?xml version=\"1.0\"?>\n<configuration>\n")
	for _, k := range keys {
		b.WriteString(renderProperty(k, conf[k], "  ", false))
	}
	b.WriteString("</configuration>\n")
	return b.Bytes()
}

// UnifiedDiff is the unified diff (3 lines of context) that turns a into b,
// as `diff -u` writes it and `patch` reads it; "" when they are equal.
func UnifiedDiff(aName, bName string, a, b []byte) (string, error) {
	return difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: difflib.SplitLines(string(a)), B: difflib.SplitLines(string(b)),
		FromFile: aName, ToFile: bName, Context: 3,
	})
}
