#!/usr/bin/env bash
# The whole test suite. Installs the pinned Claude Code CLI (used by the end-to-end tests)
# into .ci/claude-cli/ first when it is missing or has another version.
set -euo pipefail
cd "$(dirname "$0")/.."

CLI_VERSION=2.1.197
CLI_DIR=.ci/claude-cli
CLI_BIN="$CLI_DIR/node_modules/.bin/claude"

installed=$("$CLI_BIN" --version 2>/dev/null | cut -d' ' -f1 || true)
if [ "$installed" != "$CLI_VERSION" ]; then
  echo "installing @anthropic-ai/claude-code@$CLI_VERSION into $CLI_DIR" >&2
  mkdir -p "$CLI_DIR"
  npm install --prefix "$CLI_DIR" --no-audit --no-fund --loglevel=error \
    "@anthropic-ai/claude-code@$CLI_VERSION" >&2
fi

export OLLIM_TEST_CLAUDE_CLI="$PWD/$CLI_BIN"
exec cargo test --locked "$@"
