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
