#!/usr/bin/env bash
# Builds paycli's container image from a clone, with podman (or docker):
#
#   bash image/build.sh [TAG]        # default TAG: localhost/paycli:dev
#
# It lays out the build context as goreleaser's dockers_v2 does for a
# release (see image/Containerfile): a static binary for this machine's
# architecture, the user files and the CA bundle of this machine
# (CA_BUNDLE to use another). PAYCLI_IMAGE_CONTEXT names the folder to
# lay it out in (default build/image, emptied first).
set -euo pipefail
cd "$(dirname "$0")/.."
export GOTOOLCHAIN="${GOTOOLCHAIN:-local}"
tag="${1:-localhost/paycli:dev}"
ctx="${PAYCLI_IMAGE_CONTEXT:-build/image}"
arch="$(go env GOARCH)"
engine="${CONTAINER_ENGINE:-podman}"
ca="${CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}"
if [ ! -s "$ca" ]; then
  echo "no CA bundle at $ca: install ca-certificates or set CA_BUNDLE" >&2
  exit 1
fi
rm -rf "$ctx"
mkdir -p "$ctx/linux/$arch" "$ctx/image" "$ctx/build/state"
CGO_ENABLED=0 GOOS=linux GOARCH="$arch" go build -trimpath -ldflags "-s -w" -o "$ctx/linux/$arch/paycli" ./cmd/paycli
cp image/passwd image/group "$ctx/image/"
cp "$ca" "$ctx/build/ca-certificates.crt"
"$engine" build --platform "linux/$arch" -t "$tag" -f image/Containerfile "$ctx"
