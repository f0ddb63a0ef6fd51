#!/usr/bin/env bash
# The container image built and run by a real engine (BOOT-11, docs/container.md): Podman
# builds the Containerfile as it stands, then runs the image the way compose.yaml does. Not
# part of .ci/run: it needs root, Podman with runc (Debian: podman runc) and a few minutes of
# release build.
#
# The Containerfile's three base images come from Docker Hub. Where no registry can be
# reached, --stand-ins makes local images under the same names first, with mmdebstrap from
# Debian's packages: debian:bookworm-slim and debian:trixie-slim (minbase), and for
# rust:1.89-slim-bookworm a bookworm with gcc and this machine's stable Rust toolchain (so
# the build runs on that toolchain, not on 1.89). CA_FILE (optional) is a network's own CA
# that re-signs TLS: the stand-ins trust it, so cargo and npm can fetch through it.
#
# Then, with the image as localhost/ollim-bot:test:
#   1. `claude --version` in it: the pinned CLI through /usr/local/bin/claude;
#   2. `ollim-bot doctor` through the entrypoint with compose.yaml's security options: the
#      SANDBOX group passes (each CLI's bubblewrap container works inside the engine's);
#   3. the same with the engine's defaults: containers FAIL, and doctor names the setting;
#   4. `cargo test --test e2e -- --ignored container_image`: the bot in the image greets the
#      fake Discord's owner, answers through the CLI in its container, passes its health
#      check, stops through tini with exit 0 and resumes the conversation when started again.
#
# Usage: .ci/container-image.sh [--stand-ins [CA_FILE]]
set -euo pipefail
cd "$(dirname "$0")/.."

image=localhost/ollim-bot:test
[ "$(id -u)" = 0 ] || { echo "error: run as root" >&2; exit 1; }
command -v podman >/dev/null || { echo "error: podman not found" >&2; exit 1; }

stand_ins() {
  local ca=${1:-} work
  command -v mmdebstrap >/dev/null || { echo "error: mmdebstrap not found" >&2; exit 1; }
  work=$(mktemp -d /tmp/ollim-stand-ins.XXXXXX)
  trap 'rm -rf --one-file-system "$work"' RETURN
  local env=() extra=()
  if [ -n "$ca" ]; then
    mkdir -p "$work/ca/usr/local/share/ca-certificates"
    cp "$ca" "$work/ca/usr/local/share/ca-certificates/network-ca.crt"
    env=(--change "ENV NODE_EXTRA_CA_CERTS=/usr/local/share/ca-certificates/network-ca.crt"
      --change "ENV CARGO_HTTP_CAINFO=/usr/local/share/ca-certificates/network-ca.crt")
    extra=(-C "$work/ca" usr/local/share/ca-certificates/network-ca.crt)
  fi
  echo "making stand-in base images (mmdebstrap)" >&2
  mmdebstrap --quiet --variant=minbase bookworm "$work/bookworm.tar"
  podman import -q "$work/bookworm.tar" docker.io/library/debian:bookworm-slim
  mmdebstrap --quiet --variant=minbase trixie "$work/trixie.tar"
  [ -z "$ca" ] || tar -rf "$work/trixie.tar" "${extra[@]}"
  podman import -q "${env[@]}" "$work/trixie.tar" docker.io/library/debian:trixie-slim
  local toolchain
  toolchain=$(rustc --print sysroot)
  mmdebstrap --quiet --variant=minbase --include=gcc,libc6-dev,ca-certificates bookworm \
    "$work/rust.tar"
  mkdir -p "$work/bin/usr/local/cargo/bin"
  for tool in cargo rustc rustdoc; do ln -s "../toolchain/bin/$tool" "$work/bin/usr/local/cargo/bin/$tool"; done
  tar -rf "$work/rust.tar" -C "$work/bin" usr/local/cargo/bin
  [ -z "$ca" ] || tar -rf "$work/rust.tar" "${extra[@]}"
  tar -rf "$work/rust.tar" -C "$(dirname "$toolchain")" \
    --transform "s,^$(basename "$toolchain"),usr/local/cargo/toolchain," "$(basename "$toolchain")"
  podman import -q "${env[@]}" --change "ENV CARGO_HOME=/usr/local/cargo" \
    --change "ENV PATH=/usr/local/cargo/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
    "$work/rust.tar" docker.io/library/rust:1.89-slim-bookworm
}

if [ "${1:-}" = --stand-ins ]; then
  stand_ins "${2:-}"
fi

# Docker's image format: the OCI one has no HEALTHCHECK (Podman drops it with a warning).
podman build --format docker --network host -t "$image" -f Containerfile .

failed=0
check() {
  local what=$1 pattern=$2 text=$3
  if grep -q -- "$pattern" <<<"$text"; then
    echo "[ok] $what"
  else
    echo "[FAILED] $what (no '$pattern' in the output above)"
    failed=1
  fi
}
# compose.yaml's options; Podman spells `systempaths=unconfined` as `unmask=ALL`.
composed=(--security-opt seccomp=unconfined --security-opt apparmor=unconfined
  --security-opt unmask=ALL --security-opt no-new-privileges --cap-drop ALL)
run() {
  podman run --rm --network host -e ANTHROPIC_API_KEY=not-a-key \
    -e ANTHROPIC_BASE_URL=http://127.0.0.1:9 -e OLLIM_WAIT_SECS=0 "$@"
}

version=$(run "$image" claude --version 2>&1) || true
echo "$version"
check "the CLI runs from /usr/local/bin/claude" "^2\.1\.[0-9]* (Claude Code)" "$version"

doctor=$(run "${composed[@]}" "$image" ollim-bot doctor 2>&1) || true
echo "$doctor" | sed -n '/^SANDBOX/,/^SUMMARY/p'
check "with compose's options the CLIs' containers work" "^PASS containers" "$doctor"

defaults=$(run --cap-drop ALL "$image" ollim-bot doctor 2>&1) || true
echo "$defaults" | sed -n '/^SANDBOX/,/^SUMMARY/p'
check "with the engine's defaults they don't" "^FAIL no containers" "$defaults"

OLLIM_TEST_IMAGE=$image cargo test --test e2e -- --ignored container_image || failed=1

[ "$failed" = 0 ] && echo "all checks passed" || { echo "some checks failed" >&2; exit 1; }
