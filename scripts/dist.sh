#!/bin/sh
# make dist: release archives (one tar.gz per GOOS/GOARCH) and Debian
# packages, built as an ordinary user (dpkg-deb --root-owner-group: no root,
# no fakeroot). Everything lands in $DIST (default dist/):
#
#   yarn-sidecar_<version>_<os>_<arch>.tar.gz   bin/, man/man1/, README.md, LICENSE,
#                                               CHANGELOG.md, configs/ (example config, unit)
#   yarn-sidecar_<debversion>_<arch>.deb        /usr/bin, /lib/systemd/system, /etc/yarn-sidecar
#                                               (conffile), /usr/share/man/man1, /usr/share/doc
#   SHA256SUMS
#
# The version is `git describe --tags --always --dirty` (VERSION overrides),
# linked into the binaries with the commit, so `yarn-sidecar --version` says
# which build it is even with GOFLAGS=-buildvcs=false. Timestamps come from
# the commit (SOURCE_DATE_EPOCH), so two runs on one commit give the same
# archives. PLATFORMS (default "linux/amd64 linux/arm64") picks the targets.
set -eu
cd "$(dirname "$0")/.."

GO=${GO:-go}
DIST=${DIST:-dist}
PLATFORMS=${PLATFORMS:-"linux/amd64 linux/arm64"}
MODULE=github.com/yarn-sidecar/yarn-sidecar
VERSION=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo unknown)}
REVISION=$(git rev-parse HEAD 2>/dev/null || echo unknown)
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}
export SOURCE_DATE_EPOCH

# Debian versions start with a digit and use '-' only before a Debian
# revision: v0.1.0 -> 0.1.0, v0.1.0-3-gabc1234 -> 0.1.0+3.gabc1234, an
# untagged commit abc1234 -> 0.0.0+gabc1234 (a hash may start with a digit).
debversion() {
	v=${1#v}
	case $v in
	[0-9]*.[0-9]*) echo "$v" | sed 's/-/+/; s/-/./g' ;;
	*) echo "0.0.0+g$v" | sed 's/-/./g' ;;
	esac
}
DEBVERSION=$(debversion "$VERSION")

need() { command -v "$1" >/dev/null 2>&1 || { echo "dist: $1 not found ($2)" >&2; exit 1; }; }
need git "the version comes from git describe"
need tar "archives"
need gzip "archives and man pages"

rm -rf "$DIST"
work="$DIST/.work"
mkdir -p "$work"
LDFLAGS="-s -w -X $MODULE/internal/version.version=$VERSION -X $MODULE/internal/version.revision=$REVISION"

# Man pages come from the host's build (cobra/doc, the hidden `man` command).
echo "dist: $VERSION ($REVISION), man pages"
CGO_ENABLED=0 $GO build -trimpath -ldflags "$LDFLAGS" -o "$work/host/" ./cmd/yarn-sidecar ./cmd/yarnsim
"$work/host/yarn-sidecar" man --dir "$work/man1"
"$work/host/yarnsim" man --dir "$work/man1"
gzip -9n "$work"/man1/*.1

# tarball DIR NAME: a reproducible tar.gz of DIR's contents under NAME/.
tarball() {
	tar -C "$(dirname "$1")" --sort=name --owner=0 --group=0 --numeric-owner \
		--mtime="@$SOURCE_DATE_EPOCH" -cf - "$(basename "$1")" | gzip -9n >"$DIST/$2.tar.gz"
}

for p in $PLATFORMS; do
	os=${p%/*}
	arch=${p#*/}
	name="yarn-sidecar_${VERSION}_${os}_${arch}"
	echo "dist: $name"
	bin="$work/$os-$arch/bin"
	CGO_ENABLED=0 GOOS=$os GOARCH=$arch $GO build -trimpath -ldflags "$LDFLAGS" -o "$bin/" ./cmd/yarn-sidecar ./cmd/yarnsim

	# The archive.
	a="$work/archive/$name"
	mkdir -p "$a/bin" "$a/man/man1" "$a/configs"
	install -m 0755 "$bin/yarn-sidecar" "$bin/yarnsim" "$a/bin/"
	install -m 0644 "$work"/man1/*.1.gz "$a/man/man1/"
	install -m 0644 README.md LICENSE CHANGELOG.md "$a/"
	install -m 0644 configs/sidecar.example.yaml configs/yarn-sidecar.service "$a/configs/"
	tarball "$a" "$name"

	# The Debian package (Linux only).
	[ "$os" = linux ] || continue
	need dpkg-deb "the Debian package"
	r="$work/deb-$arch"
	install -d -m 0755 "$r/DEBIAN" "$r/usr/bin" "$r/lib/systemd/system" "$r/etc/yarn-sidecar" \
		"$r/usr/share/man/man1" "$r/usr/share/doc/yarn-sidecar"
	install -m 0755 "$bin/yarn-sidecar" "$bin/yarnsim" "$r/usr/bin/"
	install -m 0644 configs/yarn-sidecar.service "$r/lib/systemd/system/"
	install -m 0644 configs/sidecar.example.yaml "$r/etc/yarn-sidecar/sidecar.yaml"
	install -m 0644 "$work"/man1/*.1.gz "$r/usr/share/man/man1/"
	install -m 0644 README.md CHANGELOG.md "$r/usr/share/doc/yarn-sidecar/"
	{
		echo "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
		echo "Upstream-Name: yarn-sidecar"
		echo ""
		echo "Files: *"
		echo "License: Apache-2.0"
		echo " On Debian systems the full text is in /usr/share/common-licenses/Apache-2.0;"
		echo " it is also the LICENSE file of the release archives."
	} >"$r/usr/share/doc/yarn-sidecar/copyright"
	chmod 0644 "$r/usr/share/doc/yarn-sidecar/copyright"
	size=$(du -sk --exclude=DEBIAN "$r" | cut -f1)
	cat >"$r/DEBIAN/control" <<CONTROL
Package: yarn-sidecar
Version: $DEBVERSION
Architecture: $arch
Maintainer: yarn-sidecar developers <yarn-sidecar@users.noreply.github.com>
Installed-Size: $size
Depends: adduser
Section: admin
Priority: optional
Homepage: https://github.com/yarn-sidecar/yarn-sidecar
Description: steers Apache Hadoop YARN's Capacity Scheduler on heterogeneous clusters
 yarn-sidecar runs beside the ResourceManager and, through YARN's own REST
 APIs, learns how fast each node type runs each job class and moves queue
 capacities, node labels and app priorities so jobs finish sooner and meet
 their deadlines. Dry-run by default: it writes nothing to YARN until the
 configuration says mode: apply. yarnsim, a mini YARN cluster in virtual
 time, runs what-if comparisons for a cluster described in a file.
CONTROL
	echo /etc/yarn-sidecar/sidecar.yaml >"$r/DEBIAN/conffiles"
	cat >"$r/DEBIAN/postinst" <<'POSTINST'
#!/bin/sh
# The daemon runs as yarn-sidecar (add it to yarn.admin.acl); its state
# (calibration history, audit log) lives in /var/lib/yarn-sidecar, which
# systemd creates (StateDirectory=). Not started: edit the config first.
set -e
if [ "$1" = configure ]; then
	if ! getent passwd yarn-sidecar >/dev/null; then
		adduser --system --group --home /var/lib/yarn-sidecar --no-create-home yarn-sidecar
	fi
	if [ -d /run/systemd/system ]; then
		systemctl daemon-reload || true
	fi
fi
exit 0
POSTINST
	cat >"$r/DEBIAN/prerm" <<'PRERM'
#!/bin/sh
# Stop the daemon before its files go: SIGTERM lets an in-flight mutation
# finish (verify or roll back).
set -e
if [ "$1" = remove ] && [ -d /run/systemd/system ]; then
	systemctl stop yarn-sidecar.service || true
fi
exit 0
PRERM
	cat >"$r/DEBIAN/postrm" <<'POSTRM'
#!/bin/sh
# /var/lib/yarn-sidecar is kept even on purge: it holds the calibration
# history and the audit log, which nothing can rebuild.
set -e
if [ -d /run/systemd/system ]; then
	systemctl daemon-reload || true
fi
exit 0
POSTRM
	chmod 0755 "$r/DEBIAN/postinst" "$r/DEBIAN/prerm" "$r/DEBIAN/postrm"
	chmod 0644 "$r/DEBIAN/control" "$r/DEBIAN/conffiles"
	find "$r" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
	dpkg-deb --root-owner-group -Zxz --build "$r" "$DIST/yarn-sidecar_${DEBVERSION}_${arch}.deb" >/dev/null
	echo "dist: yarn-sidecar_${DEBVERSION}_${arch}.deb"
done

rm -rf "$work"
(cd "$DIST" && sha256sum -- *.tar.gz *.deb 2>/dev/null >SHA256SUMS || sha256sum -- *.tar.gz >SHA256SUMS)
ls -l "$DIST"
