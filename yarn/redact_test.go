package yarn

import (
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	cases := []struct{ in, secret string }{
		{`hadoop.auth=u=x&p=x@R&t=kerberos&e=1&s=SIGxyz123`, "SIGxyz123"},
		{`Cookie: hadoop.auth="u=x&s=abcdefgh"`, "abcdefgh"},
		{`Authorization: Negotiate YIIGXAYJKoZIhvcSAQICAQBuggZLMIIGR6ADAgEFoQMCAQ6iBwMFACAAAACjggR`, "YIIGXAYJKoZIhvcSAQICAQBu"},
		{`token HAAEZGVsZWdhdGlvbi10b2tlbg`, "HAAEZGVsZWdhdGlvbi10b2tlbg"},
		{`GET /ws/v1/cluster/apps?delegation=HAAEZGVsZWdh`, "HAAEZGVsZWdh"},
		{`password: hunter2`, "hunter2"},
	}
	for _, c := range cases {
		if got := Redact(c.in); strings.Contains(got, c.secret) {
			t.Errorf("Redact(%q) = %q keeps the secret", c.in, got)
		}
	}
	// Ordinary messages pass unchanged.
	for _, s := range []string{"java.lang.Exception: app application_1_0001 not found", "HTTP 500 Method Not Allowed"} {
		if Redact(s) != s {
			t.Errorf("Redact changed %q to %q", s, Redact(s))
		}
	}
}
