#!/usr/bin/env bash
# The whole test suite. Installs the pinned Claude Code CLI (used by the end-to-end tests)
# into .ci/claude-cli/ first when it is missing or has another version.
# OLLIM_TEST_CLI_VERSION=2.1.197 .ci/test.sh runs the same suite against another release.
set -euo pipefail
cd "$(dirname "$0")/.."

CLI_VERSION="${OLLIM_TEST_CLI_VERSION:-2.1.332}"
CLI_DIR=.ci/claude-cli
CLI_BIN="$CLI_DIR/node_modules/.bin/claude"

if ! command -v cargo >/dev/null 2>&1; then
  echo "error: cargo not found: install Rust 1.89 or newer (https://rustup.rs)" >&2
  exit 1
fi

# Every Claude CLI runs in a container made by bubblewrap (issue 39): the one system package.
if ! command -v bwrap >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing bubblewrap (the containers every Claude CLI runs in)" >&2
    apt-get update -qq >&2 && apt-get install -y -qq bubblewrap >&2
  else
    echo "error: bwrap not found: install bubblewrap (sudo apt install bubblewrap)" >&2
    exit 1
  fi
fi

installed=$("$CLI_BIN" --version 2>/dev/null | cut -d' ' -f1 || true)
if [ "$installed" != "$CLI_VERSION" ]; then
  for tool in node npm; do
    if ! command -v "$tool" >/dev/null 2>&1; then
      echo "error: $tool not found: install Node.js 20 or newer (with npm) to fetch the pinned Claude Code CLI $CLI_VERSION the tests run" >&2
      exit 1
    fi
  done
  echo "installing @anthropic-ai/claude-code@$CLI_VERSION into $CLI_DIR" >&2
  mkdir -p "$CLI_DIR"
  npm install --prefix "$CLI_DIR" --no-audit --no-fund --loglevel=error \
    "@anthropic-ai/claude-code@$CLI_VERSION" >&2
fi

export OLLIM_TEST_CLAUDE_CLI="$PWD/$CLI_BIN"
exec cargo test --locked "$@"
