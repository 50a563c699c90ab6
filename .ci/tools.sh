#!/usr/bin/env bash
# Installs the pinned developer tools into $(go env GOPATH)/bin. Safe to run
# again: a tool already at the pinned version is left alone.
set -euo pipefail
export GOTOOLCHAIN=local

STATICCHECK_VERSION=v0.8.2   # 0.8.x builds with Go 1.26

gobin="$(go env GOPATH)/bin"
if ! "$gobin/staticcheck" -version 2>/dev/null | grep -q "${STATICCHECK_VERSION#v}"; then
  go install "honnef.co/go/tools/cmd/staticcheck@${STATICCHECK_VERSION}"
fi
"$gobin/staticcheck" -version

# php-cli runs the gateway's reference PHP code for the hash_key cross-check
# (internal/hashkey/reference_test.go); without it that test skips. CI runs
# as root; elsewhere nothing is installed and the cross-check is skipped.
if ! command -v php >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    echo "installing php-cli for the hash_key cross-check"
    if ! { apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq php-cli >/dev/null; }; then
      echo "could not install php-cli: the PHP cross-check of hash_key will be skipped"
    fi
  else
    echo "php is not installed and apt-get is not usable here: the PHP cross-check of hash_key will be skipped"
  fi
fi
if command -v php >/dev/null 2>&1; then
  php --version | head -n 1
fi
