import type net from 'node:net';

/**
 * The daemon's wire protocol: JSON documents, one per line, over the vault's
 * Unix socket. The client sends one request; the daemon answers it and closes.
 *
 *   client → {"t":"run", v, version, build, token, argv, cwd, env, isTTY, stderrIsTTY}
 *   daemon → {"t":"accept"}  then  {"t":"err","d":…}* {"t":"out","d":…}* {"t":"exit","code":n}
 *         or {"t":"refuse","reason":…}   (the client then runs the command itself)
 *   client → {"t":"status"|"ping"|"stop", v, token}   daemon → {"t":"status", …}
 *
 * docs/internals/daemon.md describes it with its fallbacks.
 */
export const PROTOCOL = 1;

/** A request bigger than this is not a command line: the daemon drops the connection. */
export const MAX_REQUEST_BYTES = 4 * 2 ** 20;

export interface RunRequest {
  t: 'run';
  v: number;
  version: string;
  build: string;
  token: string;
  argv: string[];
  cwd: string;
  env: Record<string, string | undefined>;
  isTTY: boolean;
  stderrIsTTY: boolean;
}

export interface ControlRequest {
  t: 'status' | 'ping' | 'stop';
  v: number;
  token: string;
}

export type Request = RunRequest | ControlRequest;

/** What `daemon status` reports about a running daemon (docs/json.md). */
export interface DaemonInfo {
  pid: number;
  vault: string;
  socket: string;
  started_at: string;
  uptime_s: number;
  version: string;
  build: string;
  /** Commands answered. */
  requests: number;
  freshness: unknown;
  /** The index's reader threads (read-pool.ts), null until a big query started them. */
  read_pool: unknown;
  /** Background embedding of new and changed sections for search.embeddings (dense/background-embed.ts). */
  embeddings: unknown;
}

export type Reply =
  | { t: 'accept' }
  | { t: 'refuse'; reason: string }
  | { t: 'out' | 'err'; d: string }
  | { t: 'exit'; code: number }
  | ({ t: 'status' } & DaemonInfo)
  | { t: 'stopping'; pid: number };

export function send(socket: net.Socket, message: Reply | Request): void {
  socket.write(`${JSON.stringify(message)}\n`);
}

/** Call `onLine` with each complete line received; stops (and reports) past `limit` bytes without a newline. */
export function readLines(socket: net.Socket, onLine: (line: string) => void, limit: number, onOverflow: () => void): void {
  // Chunks of the current line: a 10 MB answer arrives in many chunks, and rescanning a growing string for '\n' would be quadratic.
  let parts: string[] = [];
  let size = 0;
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    let start = 0;
    let nl: number;
    while ((nl = chunk.indexOf('\n', start)) >= 0) {
      parts.push(chunk.slice(start, nl));
      const line = parts.join('');
      parts = [];
      size = 0;
      start = nl + 1;
      onLine(line);
    }
    if (start < chunk.length) {
      parts.push(chunk.slice(start));
      size += chunk.length - start;
      if (size > limit) {
        parts = [];
        size = 0;
        onOverflow();
      }
    }
  });
}
