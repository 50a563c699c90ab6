#!/usr/bin/env bash
# Installs the pinned developer tools into $(go env GOPATH)/bin. Safe to run
# again: a tool already at the pinned version is left alone.
#
#   bash .ci/tools.sh             # what the tests and linters need
#   bash .ci/tools.sh --release   # also goreleaser and man (what .ci/run needs)
#
# PAYCLI_RELEASE_TOOLS=1 is the same as --release. goreleaser takes minutes
# to build the first time (then it is cached in GOPATH), so a developer who
# only runs the tests does not pay for it; CI passes --release.
set -euo pipefail
export GOTOOLCHAIN=local

STATICCHECK_VERSION=v0.8.2   # 0.8.x builds with Go 1.26
GORELEASER_VERSION=v2.16.0   # v2.17 does not build here, v2.18+ need Go 1.27

release_tools="${PAYCLI_RELEASE_TOOLS:-}"
for arg in "$@"; do
  case "$arg" in
    --release) release_tools=1 ;;
    *) echo "usage: bash .ci/tools.sh [--release]" >&2; exit 2 ;;
  esac
done

gobin="$(go env GOPATH)/bin"
if ! "$gobin/staticcheck" -version 2>/dev/null | grep -q "${STATICCHECK_VERSION#v}"; then
  go install "honnef.co/go/tools/cmd/staticcheck@${STATICCHECK_VERSION}"
fi
"$gobin/staticcheck" -version

# php-cli runs paycli's PHP implementation of the hash_key
# (internal/hashkey/testdata/crosscheck.php) for the cross-checks in
# internal/hashkey and internal/webhook, and the sandbox's PHP interop client
# (internal/sandbox TestPHPInterop); php-curl lets the gateway's official PHP
# SDK run against `paycli sandbox serve` (docs/sandbox.md). Debian's chromium
# drives the sandbox's web pages in internal/sandbox TestBrowserPages. CI runs
# as root; elsewhere nothing is installed and those tests skip.
apt_packages=()
command -v php >/dev/null 2>&1 || apt_packages+=(php-cli)
{ command -v php >/dev/null 2>&1 && php -m 2>/dev/null | grep -qx curl; } || apt_packages+=(php-curl)
[ -x /usr/bin/chromium ] || apt_packages+=(chromium)
# PostgreSQL's server programs (initdb, pg_ctl) for the shared journal's
# tests (internal/testkit/pgtest starts a server of its own in a temporary folder).
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || command -v initdb >/dev/null 2>&1 || apt_packages+=(postgresql)
# PgBouncer, started by internal/testkit/pgtest in front of that server, for the
# shared journal's tests behind a connection pooler (docs/journal.md).
command -v pgbouncer >/dev/null 2>&1 || apt_packages+=(pgbouncer)
# libfaketime moves the database's clock for the desk model's late refund
# (pgtest.Options.MovableClock; internal/devtools/soak TestDeskModel).
compgen -G '/usr/lib/*/faketime/libfaketime.so.1' >/dev/null || apt_packages+=(libfaketime)
# A real Secret Service for the keyring's tests (internal/testkit/keyringtest starts
# a private dbus-daemon and gnome-keyring-daemon; secret-tool checks what
# paycli stored).
command -v dbus-daemon >/dev/null 2>&1 || apt_packages+=(dbus)
command -v gnome-keyring-daemon >/dev/null 2>&1 || apt_packages+=(gnome-keyring)
command -v secret-tool >/dev/null 2>&1 || apt_packages+=(libsecret-tools)
# podman builds and mounts the sandbox's container image in
# cmd/paycli TestContainerImage (as root: it needs no daemon, and builds
# FROM scratch pull nothing); fuse-overlayfs is its storage where the
# kernel's overlay cannot be mounted (inside another container).
# ca-certificates gives the image (and the release's before hook) its
# CA bundle.
command -v podman >/dev/null 2>&1 || apt_packages+=(podman)
command -v fuse-overlayfs >/dev/null 2>&1 || apt_packages+=(fuse-overlayfs)
[ -s /etc/ssl/certs/ca-certificates.crt ] || apt_packages+=(ca-certificates)
# psql, for the journal's rules tried as an operator types them (pgjournal).
compgen -G '/usr/lib/postgresql/*/bin/psql' >/dev/null || command -v psql >/dev/null 2>&1 || apt_packages+=(postgresql-client)
if [ ${#apt_packages[@]} -gt 0 ]; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    echo "installing ${apt_packages[*]} for the PHP cross-checks, the browser test, the shared journal's tests and the image test"
    if ! { apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${apt_packages[@]}" >/dev/null; }; then
      echo "could not install ${apt_packages[*]}: the PHP cross-checks or the browser test will be skipped"
    fi
  else
    echo "${apt_packages[*]} missing and apt-get is not usable here: the PHP cross-checks or the browser test will be skipped"
  fi
fi
if command -v php >/dev/null 2>&1; then
  php --version | head -n 1
fi
if [ -x /usr/bin/chromium ]; then
  /usr/bin/chromium --version 2>/dev/null || true
fi
if command -v podman >/dev/null 2>&1; then
  podman --version
fi

if [ -n "$release_tools" ] && [ "$release_tools" != 0 ]; then
  # `goreleaser --version` prints "GitVersion:    v2.16.0" for a go-installed build.
  if ! "$gobin/goreleaser" --version 2>/dev/null | grep -q "GitVersion: *${GORELEASER_VERSION}\$"; then
    echo "installing goreleaser ${GORELEASER_VERSION} (a few minutes the first time)"
    start=$SECONDS
    go install "github.com/goreleaser/goreleaser/v2@${GORELEASER_VERSION}"
    echo "goreleaser installed in $((SECONDS - start))s"
  fi
  echo "goreleaser $("$gobin/goreleaser" --version 2>/dev/null | awk '/^GitVersion:/ {print $2}')"

  # man renders the generated man pages in CI (.ci/run checks each one).
  # (`man --version` also fails on the stub of a minimized Debian image.)
  if ! man --version >/dev/null 2>&1 || ! command -v nroff >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
      echo "installing man-db and groff-base to check the man pages"
      if ! { apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq man-db groff-base >/dev/null; }; then
        echo "could not install man-db: the man page check will be skipped"
      fi
    else
      echo "man is not installed and apt-get is not usable here: the man page check will be skipped"
    fi
  fi
fi
