#!/usr/bin/env bash
# The container image's runtime layout tried without a container engine (BOOT-11,
# docs/container.md). Not part of .ci/run: it needs root, mmdebstrap and deb.debian.org.
#
# It makes a root file system of the Containerfile runtime stage's Debian packages (cached as a
# tarball under ~/.cache/ollim-bot/), puts the bot, the pinned CLI's package and the two
# scripts where the Containerfile puts them, adds the `bot` user, and then, in new mount and PID
# namespaces after pivot_root, as uid 10001 with no capabilities and no new privileges (what the
# image's USER and compose's cap_drop/no-new-privileges give), runs:
#   1. `claude --version`: the CLI found through /usr/local/bin/claude;
#   2. tini + the entrypoint + `ollim-bot doctor`, with a plain /proc: SANDBOX containers PASS;
#   3. the same with /proc masked and read-only in parts as Docker's defaults do: containers
#      FAIL, which is what `systempaths=unconfined` in compose.yaml is for;
#   4. the entrypoint's wait with the image's real curl: a URL answering an error is up, a closed
#      port makes it give up with 69.
#
# Usage: .ci/container-rootfs.sh [BOT_BINARY]    (default target/debug/ollim-bot)
set -euo pipefail
cd "$(dirname "$0")/.."

bot=${1:-target/debug/ollim-bot}
cli=.ci/claude-cli/node_modules/@anthropic-ai/claude-code
[ "$(id -u)" = 0 ] || { echo "error: run as root (it mounts and pivots)" >&2; exit 1; }
for need in mmdebstrap unshare setpriv; do
  command -v "$need" >/dev/null || { echo "error: $need not found" >&2; exit 1; }
done
[ -x "$bot" ] || { echo "error: no bot at $bot: cargo build --bin ollim-bot" >&2; exit 1; }
[ -x "$cli/bin/claude.exe" ] || { echo "error: no CLI at $cli: run .ci/test.sh once" >&2; exit 1; }

# The runtime stage's package list, as the Containerfile has it (its last apt-get install).
packages=$(sed -n 's/.*apt-get install -y --no-install-recommends \(.*\) \\$/\1/p' Containerfile |
  tail -n 1)
[ -n "$packages" ] || { echo "error: no package list in the Containerfile" >&2; exit 1; }
cache=${XDG_CACHE_HOME:-$HOME/.cache}/ollim-bot
key=$(printf '%s' "$packages" | sha256sum | cut -c1-12)
tarball=$cache/rootfs-bookworm-$key.tar
if [ ! -s "$tarball" ]; then
  mkdir -p "$cache"
  echo "making the root file system: $packages" >&2
  # mmdebstrap tells the output's format by its name's ending.
  mmdebstrap --quiet --variant=minbase --include="${packages// /,}" bookworm "$cache/partial.tar"
  mv "$cache/partial.tar" "$tarball"
fi

root=$(mktemp -d /tmp/ollim-rootfs.XXXXXX)
trap 'rm -rf --one-file-system "$root"' EXIT
tar -C "$root" -xf "$tarball"
# The Containerfile's runtime steps, in order.
chroot "$root" useradd --create-home --uid 10001 --user-group --shell /bin/sh bot
chroot "$root" install -d -o bot -g bot -m 0700 /home/bot/.ollim-bot /home/bot/.claude
cp -r "$cli" "$root/opt/claude-code"
install -m 0755 "$bot" "$root/usr/local/bin/ollim-bot"
install -m 0755 container/entrypoint.sh "$root/usr/local/bin/ollim-entrypoint"
install -m 0755 container/healthcheck.sh "$root/usr/local/bin/ollim-healthcheck"
ln -s /opt/claude-code/bin/claude.exe "$root/usr/local/bin/claude"
cp /etc/resolv.conf "$root/etc/resolv.conf"

# Runs "$@" in $root as the image would: PID 1 tini, uid 10001, the image's environment.
# $1: `plain` or `masked` (/proc as Docker leaves it by default).
in_image() {
  local proc=$1
  shift
  unshare --mount --pid --fork --propagation private /bin/bash -s "$root" "$proc" "$@" <<'INNER'
set -euo pipefail
root=$1 proc=$2
shift 2
mount --bind "$root" "$root"
mount -t proc proc "$root/proc"
mount --rbind /dev "$root/dev"
mount -t tmpfs tmpfs "$root/tmp"
if [ "$proc" = masked ]; then
  for dir in acpi asound scsi; do
    [ -d "$root/proc/$dir" ] && mount -t tmpfs -o ro tmpfs "$root/proc/$dir"
  done
  for file in kcore keys latency_stats timer_list sched_debug; do
    [ -e "$root/proc/$file" ] && mount --bind /dev/null "$root/proc/$file"
  done
  for path in bus fs irq sys sysrq-trigger; do
    [ -e "$root/proc/$path" ] || continue
    mount --bind "$root/proc/$path" "$root/proc/$path"
    mount -o remount,bind,ro "$root/proc/$path"
  done
fi
cd "$root"
mkdir -p .host
pivot_root . .host
umount -l /.host
rmdir /.host
exec setpriv --reuid 10001 --regid 10001 --clear-groups --no-new-privs \
  --bounding-set -all --inh-caps -all \
  /usr/bin/env -i HOME=/home/bot CLAUDE_CONFIG_DIR=/home/bot/.claude DISABLE_AUTOUPDATER=1 \
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  ANTHROPIC_API_KEY=not-a-key ANTHROPIC_BASE_URL=http://127.0.0.1:9 OLLIM_WAIT_SECS=0 \
  ${EXTRA_ENV:-} /usr/bin/tini -- /usr/local/bin/ollim-entrypoint "$@"
INNER
}

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

version=$(in_image plain claude --version 2>&1) || true
echo "$version"
check "the CLI runs from /usr/local/bin/claude as uid 10001" "^2\.1\.[0-9]* (Claude Code)" "$version"

doctor=$(in_image plain ollim-bot doctor 2>&1) || true
echo "$doctor" | sed -n '/^SANDBOX/,/^SUMMARY/p'
check "the entrypoint made the data dir and ran doctor" "^DATA DIRECTORY" "$doctor"
check "CLI containers work with a plain /proc" "^PASS containers" "$doctor"

masked=$(in_image masked ollim-bot doctor 2>&1) || true
echo "$masked" | sed -n '/^SANDBOX/,/^SUMMARY/p'
check "CLI containers fail with Docker's masked /proc" "^FAIL no containers" "$masked"
check "doctor names the engine's setting for it" "systempaths=unconfined" "$masked"
# A server on the host's loopback (the harness shares the host's network) that answers 501.
port_file=$(mktemp)
python3 -c '
import http.server, sys
server = http.server.HTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
open(sys.argv[1], "w").write(str(server.server_port))
server.serve_forever()' "$port_file" 2>/dev/null &
server=$!
trap 'kill "$server" 2>/dev/null; rm -rf --one-file-system "$root" "$port_file"' EXIT
for _ in $(seq 50); do [ -s "$port_file" ] && break; sleep 0.1; done
url=http://127.0.0.1:$(cat "$port_file")/not-here
waited=$(EXTRA_ENV="OLLIM_WAIT_FOR=$url OLLIM_WAIT_SECS=5" in_image plain ollim-bot --version 2>&1) \
  || true
echo "$waited"
check "a URL answering an error (501) counts as up; the bot then starts" "^ollim-bot " "$waited"
code=0
closed=$(EXTRA_ENV="OLLIM_WAIT_FOR=http://127.0.0.1:9/ OLLIM_WAIT_SECS=1 OLLIM_WAIT_POLL=1" \
  in_image plain ollim-bot --version 2>&1) || code=$?
echo "$closed"
check "a closed port stops the start" "did not answer within 1s" "$closed"
[ "$code" = 69 ] && echo "[ok] ... with exit 69" || { echo "[FAILED] exit $code, not 69"; failed=1; }
exit "$failed"
