#!/usr/bin/env bash
# System packages that npm cannot provide, installed from Debian's archive when
# running as root (CI, a fresh dev machine); elsewhere it says what is missing.
# - git: required (checkpoint tests).
# - chromium: the real browser the web inbox tests drive through playwright-core.
# - tmux: the terminal inbox tests run the real TUI inside it.
# - ripgrep: the benchmark's second baseline; only a warning when missing.
# - a C/C++ toolchain and python3: better-sqlite3 compiles from source when no
#   prebuilt binary can be downloaded (about a minute).
# Idempotent and quiet when everything is present.
set -euo pipefail
updated=0
install() {
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    if [ "$updated" = 0 ]; then apt-get update -qq >/dev/null 2>&1 || true; updated=1; fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null 2>&1
  else
    return 1
  fi
}
need() { # need COMMAND PACKAGE WHY
  command -v "$1" >/dev/null 2>&1 && return 0
  install "$2" || { echo "$1 is required ($3): install the Debian package '$2' (sudo apt-get install $2)" >&2; return 1; }
}
missing=0
need git git "checkpoint and tests" || missing=1
need make make "building better-sqlite3" || missing=1
need g++ g++ "building better-sqlite3" || missing=1
need python3 python3 "node-gyp, building better-sqlite3" || missing=1
need tmux tmux "terminal inbox tests" || missing=1
need chromium chromium "web inbox browser tests" || missing=1
command -v rg >/dev/null 2>&1 || install ripgrep || echo "warning: ripgrep not installed; npm run bench will skip its ripgrep baseline" >&2
if [ "$missing" = 1 ]; then exit 1; fi
