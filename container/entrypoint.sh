#!/bin/sh
# The image's entrypoint (BOOT-11, docs/container.md). Before an `ollim-bot` command it:
#   1. checks the data dir and the CLI's config dir can be written (else exit 78);
#   2. waits for the services the bot needs to answer (else exit 69);
#   3. when ANTHROPIC_BASE_URL is an Ollama server, makes sure it has the models the
#      variables name, pulling the missing ones (a failed pull is only a warning);
# then it becomes the command. Any other command (a shell, `claude`) runs at once.
#
# OLLIM_WAIT_FOR   URLs to wait for, separated by spaces (unset: ANTHROPIC_BASE_URL unless it
#                  is Anthropic's API; empty: none)
# OLLIM_WAIT_SECS  how long to wait for each, in seconds (default 120; 0: don't wait)
# OLLIM_WAIT_POLL  seconds between two tries (default 2)
# OLLIM_PULL_SECS  how long a model pull may take, in seconds (default 1800)
set -u -f # no globbing: URLs may hold ? and *

EX_UNAVAILABLE=69
EX_CONFIG=78

say() { printf 'ollim-entrypoint: %s\n' "$*"; }
warn() { printf 'ollim-entrypoint: warning: %s\n' "$*" >&2; }
fail() {
  code=$1
  shift
  printf 'ollim-entrypoint: error: %s\n' "$*" >&2
  exit "$code"
}

# A whole number of seconds from the variable named $1, default $2.
seconds() {
  eval "value=\${$1:-$2}"
  case $value in
    '' | *[!0-9]*) fail "$EX_CONFIG" "$1 must be a whole number of seconds, not '$value'" ;;
  esac
  printf '%s' "$value"
}

# 1. Volumes. The dirs as the bot finds them: OLLIM_DATA_DIR (a leading ~/ is HOME), else
#    ~/.ollim-bot; CLAUDE_CONFIG_DIR when set.
writable_dir() {
  dir=$1
  what=$2
  uid=$(id -u)
  if [ -e "$dir" ] && [ ! -d "$dir" ]; then
    fail "$EX_CONFIG" "$what $dir is not a directory"
  fi
  if [ ! -d "$dir" ] && ! mkdir -p "$dir" 2>/dev/null; then
    fail "$EX_CONFIG" "$what $dir cannot be created by uid $uid; mount a volume there that uid $uid owns"
  fi
  if [ ! -w "$dir" ]; then
    fail "$EX_CONFIG" "$what $dir is not writable by uid $uid; give the volume to that user (chown -R $uid:$(id -g) on the host) or use a named volume"
  fi
}

check_volumes() {
  data_dir=${OLLIM_DATA_DIR:-}
  case $data_dir in
    '') data_dir=${HOME:-}/.ollim-bot ;;
    '~/'*) data_dir=${HOME:-}/${data_dir#'~/'} ;;
  esac
  writable_dir "$data_dir" "the data dir"
  if [ -n "${CLAUDE_CONFIG_DIR:-}" ]; then
    writable_dir "$CLAUDE_CONFIG_DIR" "the CLI's config dir (CLAUDE_CONFIG_DIR)"
  fi
}

# 2. Dependencies: a URL is up once it answers HTTP at all (any status).
wait_for() {
  if [ -n "${OLLIM_WAIT_FOR+set}" ]; then
    urls=$OLLIM_WAIT_FOR
  else
    case ${ANTHROPIC_BASE_URL:-} in
      '' | https://api.anthropic.com | https://api.anthropic.com/) urls= ;;
      *) urls=$ANTHROPIC_BASE_URL ;;
    esac
  fi
  limit=$(seconds OLLIM_WAIT_SECS 120) || exit
  poll=$(seconds OLLIM_WAIT_POLL 2) || exit
  [ "$limit" = 0 ] && return
  for url in $urls; do
    start=$(date +%s)
    told=
    until curl -sS -m 5 -o /dev/null "$url" 2>/dev/null; do
      if [ $(($(date +%s) - start)) -ge "$limit" ]; then
        fail "$EX_UNAVAILABLE" "$url did not answer within ${limit}s (OLLIM_WAIT_SECS)"
      fi
      if [ -z "$told" ]; then
        say "waiting for $url"
        told=yes
      fi
      sleep "$poll"
    done
    if [ -n "$told" ]; then
      say "$url is up"
    fi
  done
}

# 3. Ollama's models. A name goes into a JSON body only after this check, so nothing in it
#    can change the request.
model_name_ok() {
  case $1 in
    '' | *[!A-Za-z0-9._:/-]*) return 1 ;;
  esac
}

ensure_model() {
  model=$1
  body=$(printf '{"model":"%s"}' "$model")
  if curl -fsS -m 10 -o /dev/null -H 'Content-Type: application/json' -d "$body" \
    "$base/api/show" 2>/dev/null; then
    say "model $model ready"
    return
  fi
  say "pulling $model (this can take minutes)"
  body=$(printf '{"model":"%s","stream":false}' "$model")
  if error=$(curl -fsS -m "$pull_secs" -o /dev/null -H 'Content-Type: application/json' \
    -d "$body" "$base/api/pull" 2>&1); then
    say "model $model pulled"
  else
    warn "could not pull $model from $base (${error:-no answer}); the bot starts anyway, and its calls to that model fail until it is there"
  fi
}

ollama_models() {
  base=${ANTHROPIC_BASE_URL:-}
  base=${base%/}
  case $base in
    '' | https://api.anthropic.com) return 0 ;;
  esac
  names=
  for name in ANTHROPIC_MODEL ANTHROPIC_SMALL_FAST_MODEL ANTHROPIC_DEFAULT_OPUS_MODEL \
    ANTHROPIC_DEFAULT_SONNET_MODEL ANTHROPIC_DEFAULT_HAIKU_MODEL; do
    eval "model=\${$name:-}"
    [ -n "$model" ] && names="$names $name"
  done
  [ -n "$names" ] || return 0
  # Only an Ollama server answers this; any other API is left alone.
  curl -fsS -m 5 -o /dev/null "$base/api/version" 2>/dev/null || return 0
  pull_secs=$(seconds OLLIM_PULL_SECS 1800) || exit
  models=
  for name in $names; do
    eval "model=\${$name}"
    model_name_ok "$model" ||
      fail "$EX_CONFIG" "$name='$model' is not a model name Ollama takes (letters, digits and . _ : / - only)"
    case " $models " in
      *" $model "*) ;;
      *) models="$models $model" ;;
    esac
  done
  for model in $models; do
    ensure_model "$model"
  done
}

if [ $# -eq 0 ]; then
  set -- ollim-bot
fi
case ${1##*/} in
  ollim-bot)
    check_volumes
    wait_for
    ollama_models
    ;;
esac
exec "$@"
