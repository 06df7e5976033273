package yarn

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"os"
	"strings"

	krbclient "github.com/jcmturner/gokrb5/v8/client"
	krbconfig "github.com/jcmturner/gokrb5/v8/config"
	"github.com/jcmturner/gokrb5/v8/credentials"
	"github.com/jcmturner/gokrb5/v8/keytab"
	"github.com/jcmturner/gokrb5/v8/spnego"
)

// Kerberos configures SPNEGO authentication to Kerberized RM, AM proxy and
// JobHistory web endpoints (hadoop.http.authentication.type=kerberos).
// Either a keytab and principal (a daemon's usual setup) or a ticket
// cache (after kinit; KRB5CCNAME when CCache is empty) is used.
type Kerberos struct {
	Principal string // e.g. yarn-sidecar/host.example.com@EXAMPLE.COM
	Keytab    string
	CCache    string
	Krb5Conf  string // default /etc/krb5.conf
}

// TLS configures HTTPS (yarn.http.policy=HTTPS_ONLY) with a CA bundle.
type TLS struct {
	CAFile string // PEM; empty: the system roots
}

// HTTPClientFor builds the HTTP client for the given TLS settings, with a
// cookie jar so Hadoop's hadoop.auth cookie is reused after one SPNEGO
// round trip.
func HTTPClientFor(t TLS) (*http.Client, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if t.CAFile != "" {
		pem, err := os.ReadFile(t.CAFile)
		if err != nil {
			return nil, fmt.Errorf("read CA file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("CA file %s holds no PEM certificate", t.CAFile)
		}
		tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	jar, err := cookiejar.New(nil)
	if err != nil {
		return nil, err
	}
	return &http.Client{Transport: tr, Jar: jar}, nil
}

// kerberosClient logs in with the keytab or the ticket cache.
func kerberosClient(k Kerberos) (*krbclient.Client, error) {
	confPath := k.Krb5Conf
	if confPath == "" {
		confPath = "/etc/krb5.conf"
	}
	conf, err := krbconfig.Load(confPath)
	if err != nil {
		return nil, fmt.Errorf("kerberos: load %s: %w", confPath, err)
	}
	var cl *krbclient.Client
	switch {
	case k.Keytab != "":
		user, realm, ok := strings.Cut(k.Principal, "@")
		if !ok || user == "" || realm == "" {
			return nil, fmt.Errorf("kerberos: principal %q: want name[/host]@REALM", k.Principal)
		}
		kt, err := keytab.Load(k.Keytab)
		if err != nil {
			return nil, fmt.Errorf("kerberos: load keytab %s: %w", k.Keytab, err)
		}
		cl = krbclient.NewWithKeytab(user, realm, kt, conf, krbclient.DisablePAFXFAST(true))
	default:
		path := k.CCache
		if path == "" {
			path = strings.TrimPrefix(os.Getenv("KRB5CCNAME"), "FILE:")
		}
		if path == "" {
			path = fmt.Sprintf("/tmp/krb5cc_%d", os.Getuid())
		}
		cc, err := credentials.LoadCCache(path)
		if err != nil {
			return nil, fmt.Errorf("kerberos: no keytab given and ticket cache %s unreadable (run kinit): %w", path, err)
		}
		cl, err = krbclient.NewFromCCache(cc, conf, krbclient.DisablePAFXFAST(true))
		if err != nil {
			return nil, fmt.Errorf("kerberos: ticket cache %s: %w", path, err)
		}
	}
	if err := cl.Login(); err != nil {
		return nil, fmt.Errorf("kerberos: login as %s: %w", k.Principal, err)
	}
	return cl, nil
}

// spnegoHook sets the SPNEGO Authorization header on each request (SPN
// HTTP/<host>, as Hadoop's AuthenticationFilter expects).
func spnegoHook(cl *krbclient.Client) func(*http.Request) error {
	return func(r *http.Request) error {
		if err := spnego.SetSPNEGOHeader(cl, r, ""); err != nil {
			return fmt.Errorf("kerberos: SPNEGO for %s: %w", r.URL.Host, err)
		}
		return nil
	}
}
