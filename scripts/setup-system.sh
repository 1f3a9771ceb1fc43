#!/usr/bin/env bash
# System packages the test suite needs that npm cannot provide: ripgrep for the
# benchmark baseline, Debian's chromium for web-inbox tests (later issues).
# Idempotent and quiet when everything is present.
set -euo pipefail
need=()
command -v git >/dev/null 2>&1 || need+=(git)
command -v rg >/dev/null 2>&1 || need+=(ripgrep)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  else
    echo "missing system packages: ${need[*]} (install them with your package manager)" >&2
    exit 1
  fi
fi
