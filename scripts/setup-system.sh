#!/usr/bin/env bash
# System packages that npm cannot provide. git is required (checkpoint tests);
# ripgrep is the benchmark's second baseline, so failing to get it is only a warning.
# Idempotent and quiet when everything is present.
set -euo pipefail
install() {
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@"; } >/dev/null 2>&1
  else
    return 1
  fi
}
if ! command -v git >/dev/null 2>&1; then
  install git || { echo "git is required: install it with your package manager" >&2; exit 1; }
fi
if ! command -v rg >/dev/null 2>&1; then
  install ripgrep || echo "warning: ripgrep not installed; npm run bench will skip its ripgrep baseline" >&2
fi
