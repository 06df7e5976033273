package hdfs

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/colinmarc/hdfs/v2/hadoopconf"
)

// DefaultRPCPort is the NameNode RPC port when fs.defaultFS names none
// (HdfsClientConfigKeys.DFS_NAMENODE_RPC_PORT_DEFAULT).
const DefaultRPCPort = "8020"

// ErrNoNameNode means the configuration names no NameNode.
var ErrNoNameNode = errors.New("hdfs: no NameNode address configured (fs.defaultFS or dfs.namenode.rpc-address)")

// LoadOptions reads core-site.xml and hdfs-site.xml from confDir (a
// HADOOP_CONF_DIR) and returns the options they imply.
func LoadOptions(confDir string) (Options, error) {
	conf, err := hadoopconf.Load(confDir)
	if err != nil {
		return Options{}, fmt.Errorf("hdfs: load %s: %w", confDir, err)
	}
	if conf == nil {
		return Options{}, fmt.Errorf("hdfs: no core-site.xml or hdfs-site.xml in %s", confDir)
	}
	return OptionsFromConf(conf)
}

// OptionsFromConf returns the NameNode addresses of fs.defaultFS's
// nameservice and the Kerberos settings. With
// hadoop.security.authentication=kerberos, the caller must still set
// KerberosClient (credentials are not in the site files).
func OptionsFromConf(conf hadoopconf.HadoopConf) (Options, error) {
	addrs, err := NameNodes(conf, "")
	if err != nil {
		return Options{}, err
	}
	opts := Options{Addresses: addrs}
	if strings.EqualFold(conf["hadoop.security.authentication"], "kerberos") {
		opts.Kerberos = true
		opts.KerberosServicePrincipleName = strings.Split(conf["dfs.namenode.kerberos.principal"], "@")[0]
	}
	return opts, nil
}

// NameNodes returns the RPC addresses of a nameservice's NameNodes in the
// order dfs.ha.namenodes.<ns> lists them, so a client tries them as Hadoop's
// ConfiguredFailoverProxyProvider does. nameservice "" means the one
// fs.defaultFS names; a plain host[:port] there is a single NameNode. With
// no fs.defaultFS it falls back to every dfs.namenode.rpc-address.
//
// colinmarc/hdfs's HadoopConf.Namenodes merges the NameNodes of every
// nameservice in sorted order, which under federation would mix clusters;
// hence this function.
func NameNodes(conf hadoopconf.HadoopConf, nameservice string) ([]string, error) {
	if nameservice == "" {
		def := conf["fs.defaultFS"]
		if def == "" {
			def = conf["fs.default.name"] // deprecated key, still honoured by Hadoop
		}
		if def != "" {
			u, err := url.Parse(def)
			if err != nil {
				return nil, fmt.Errorf("hdfs: fs.defaultFS %q: %w", def, err)
			}
			if u.Scheme != "hdfs" {
				return nil, fmt.Errorf("hdfs: fs.defaultFS %q is not an hdfs:// URI", def)
			}
			nameservice = u.Host
		}
	}
	if nameservice == "" {
		if a := conf["dfs.namenode.rpc-address"]; a != "" {
			return []string{a}, nil
		}
		if nns := conf.Namenodes(); len(nns) > 0 {
			return nns, nil
		}
		return nil, ErrNoNameNode
	}
	ids := conf["dfs.ha.namenodes."+nameservice]
	if ids == "" {
		// Not a logical nameservice: a NameNode host, maybe with a port.
		if _, _, err := net.SplitHostPort(nameservice); err == nil {
			return []string{nameservice}, nil
		}
		if a := conf["dfs.namenode.rpc-address."+nameservice]; a != "" {
			return []string{a}, nil
		}
		return []string{net.JoinHostPort(nameservice, DefaultRPCPort)}, nil
	}
	var addrs []string
	for _, id := range strings.Split(ids, ",") {
		id = strings.TrimSpace(id)
		if id == "" {
			continue
		}
		key := "dfs.namenode.rpc-address." + nameservice + "." + id
		a := conf[key]
		if a == "" {
			return nil, fmt.Errorf("hdfs: nameservice %s lists NameNode %s but %s is not set", nameservice, id, key)
		}
		addrs = append(addrs, a)
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("hdfs: dfs.ha.namenodes.%s lists no NameNode", nameservice)
	}
	return addrs, nil
}
