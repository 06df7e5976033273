package yarn

import "regexp"

// Secrets an RM, a proxy or a login page may echo in an error body: the
// hadoop.auth cookie, delegation tokens (?delegation=, "token ..."), SPNEGO
// tokens, passwords. Error messages keep their shape with the values cut,
// so nothing the sidecar logs, audits or reports carries them.
var secretPatterns = []struct {
	re   *regexp.Regexp
	repl string
}{
	{regexp.MustCompile(`(?i)(hadoop\.auth\s*[=:]\s*)("[^"]*"|[^\s;,"']+)`), "${1}<redacted>"},
	{regexp.MustCompile(`(?i)\b(negotiate|bearer|basic)\s+[A-Za-z0-9+/=_\-.]{8,}`), "${1} <redacted>"},
	{regexp.MustCompile(`(?i)\b(delegation(?:[ _-]?token)?|token|password|passwd|pwd|secret|signature)(\s*[=:]\s*|\s+)("[^"]*"|[^\s&;,"']+)`), "${1}${2}<redacted>"},
	{regexp.MustCompile(`([?&]s=)[^\s&"']+`), "${1}<redacted>"}, // the cookie's signature field
}

// Redact cuts secret values out of a message from a server.
func Redact(s string) string {
	for _, p := range secretPatterns {
		s = p.re.ReplaceAllString(s, p.repl)
	}
	return s
}
