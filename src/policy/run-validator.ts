import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseStrictJson } from '../txn/index.js';

/**
 * Run a scenario's `validate.mjs` on a proposed change, in a child process and
 * never in ours: the script is user code, and a bug in it (a loop, a leak, a
 * crash) must cost one blocked check, not the review.
 *
 * Protocol (docs/policy.md): the change arrives as one JSON document on stdin;
 * the script prints exactly one JSON document `{"ok": boolean, "messages":
 * [string, …]}` on stdout and exits 0. Anything else — a non-zero exit, a
 * signal, no answer within the timeout, memory over the cap, more output than
 * the bound, text that is not strict JSON, other keys or types — is an outcome
 * other than `answered`, which review turns into a blocking check.
 *
 * The child gets an empty environment (no API keys leak into it), runs in the
 * scenario folder, and, where Node has the permission model, may read only that
 * folder: no other file, no writes, no child processes, no workers.
 */

/** How long a validator may run (wall clock) before it is killed. */
export const VALIDATOR_TIMEOUT_MS = 5_000;
/** V8 heap cap of the validator (`--max-old-space-size`), MiB. */
export const VALIDATOR_MEMORY_MB = 128;
/**
 * Resident memory over the heap cap that is tolerated (Node itself, buffers the
 * heap cap does not count), MiB. On Linux the child is killed when its RSS
 * passes heap cap + this; elsewhere only the heap cap applies.
 */
export const VALIDATOR_RSS_MARGIN_MB = 96;
/** Largest input document sent to a validator; a bigger change is not validated (blocked). */
export const MAX_VALIDATOR_INPUT_BYTES = 32 * 1024 * 1024;
/** Largest answer read from a validator's stdout. */
export const MAX_VALIDATOR_OUTPUT_BYTES = 64 * 1024;
/** Most messages kept from an answer, and the longest message kept (characters). */
export const MAX_VALIDATOR_MESSAGES = 100;
export const MAX_VALIDATOR_MESSAGE_CHARS = 2_000;
/** How much of a failing validator's stderr is kept for the message. */
const STDERR_KEEP_BYTES = 2_048;
const RSS_POLL_MS = 20;

export type ValidatorOutcome =
  | 'answered'
  | 'crashed'
  | 'timeout'
  | 'out_of_memory'
  | 'output_too_large'
  | 'bad_answer'
  | 'input_too_large'
  | 'spawn_failed';

export interface ValidatorResult {
  outcome: ValidatorOutcome;
  /** The validator's verdict; false for every outcome but `answered`. */
  ok: boolean;
  /** The validator's messages (`answered`), else empty. */
  messages: string[];
  /** What went wrong, for every outcome but `answered`. */
  problem: string | null;
  /** Whether Node's permission model confined the child to the scenario folder. */
  sandboxed: boolean;
  took_ms: number;
}

export interface ValidatorLimits {
  timeoutMs?: number;
  memoryMb?: number;
}

/** `--permission` (Node ≥ 22.13) or `--experimental-permission` (Node 20), or null when this Node has neither. */
function permissionFlag(): string | null {
  const flags = process.allowedNodeEnvironmentFlags;
  if (flags.has('--permission')) return '--permission';
  if (flags.has('--experimental-permission')) return '--experimental-permission';
  return null;
}

/** Resident set size of a process in MiB (Linux /proc), or null where it cannot be read. */
function rssMb(pid: number): number | null {
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** Check an answer's shape; returns the messages, or why it is not an answer. */
function readAnswer(stdout: Buffer): { ok: boolean; messages: string[] } | string {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(stdout).trim();
  } catch {
    return 'its output is not UTF-8';
  }
  if (text === '') return 'it printed nothing (it must print {"ok": true|false, "messages": [...]})';
  let answer: unknown;
  try {
    answer = parseStrictJson(text);
  } catch (e) {
    return `its output is not one strict JSON document (${(e as Error).message.replace(/^bundle is not strict JSON: /, '')}): ${JSON.stringify(text.slice(0, 80))}`;
  }
  if (answer === null || typeof answer !== 'object' || Array.isArray(answer)) return 'its answer is not a JSON object';
  const keys = Object.keys(answer);
  const extra = keys.filter((k) => k !== 'ok' && k !== 'messages');
  if (extra.length > 0) return `its answer has unknown key ${JSON.stringify(extra[0])} (only "ok" and "messages")`;
  const { ok, messages } = answer as { ok?: unknown; messages?: unknown };
  if (typeof ok !== 'boolean') return 'its answer needs "ok": true or false';
  if (!Array.isArray(messages) || !messages.every((m) => typeof m === 'string')) return 'its answer needs "messages": a list of strings';
  const kept = messages.slice(0, MAX_VALIDATOR_MESSAGES).map((m) => (m.length > MAX_VALIDATOR_MESSAGE_CHARS ? m.slice(0, MAX_VALIDATOR_MESSAGE_CHARS - 1) + '…' : m));
  if (messages.length > MAX_VALIDATOR_MESSAGES) kept.push(`(${messages.length - MAX_VALIDATOR_MESSAGES} more messages left out)`);
  return { ok, messages: kept };
}

/**
 * Run `script` with `input` (serialised as JSON) on its stdin. Never throws for
 * anything the script does; the outcome says what happened.
 */
export function runValidator(script: string, input: unknown, limits: ValidatorLimits = {}): Promise<ValidatorResult> {
  const timeoutMs = limits.timeoutMs ?? VALIDATOR_TIMEOUT_MS;
  const memoryMb = limits.memoryMb ?? VALIDATOR_MEMORY_MB;
  const started = performance.now();
  const perm = permissionFlag();
  const result = (outcome: ValidatorOutcome, problem: string | null, answer?: { ok: boolean; messages: string[] }): ValidatorResult => ({
    outcome,
    ok: answer?.ok ?? false,
    messages: answer?.messages ?? [],
    problem,
    sandboxed: perm !== null,
    took_ms: Math.round(performance.now() - started),
  });

  const json = Buffer.from(JSON.stringify(input), 'utf8');
  if (json.length > MAX_VALIDATOR_INPUT_BYTES) {
    return Promise.resolve(result('input_too_large', `the change is ${json.length} bytes as JSON, over the validator input limit of ${MAX_VALIDATOR_INPUT_BYTES}`));
  }
  let dir: string;
  let file: string;
  try {
    file = fs.realpathSync(script);
    dir = path.dirname(file);
  } catch (e) {
    return Promise.resolve(result('spawn_failed', `cannot find ${script}: ${(e as Error).message}`));
  }
  const args = [`--max-old-space-size=${memoryMb}`, '--no-warnings'];
  // The folder's contents by wildcard, the form Node 20 and later all document (one flag:
  // Node 20.20 aborts when given both `dir` and `dir/*`).
  if (perm) args.push(perm, `--allow-fs-read=${path.join(dir, '*')}`);
  args.push(file);

  return new Promise((resolve) => {
    let killedFor: { outcome: ValidatorOutcome; problem: string } | null = null;
    const out: Buffer[] = [];
    let outBytes = 0;
    let err = Buffer.alloc(0);
    let settled = false;
    const child = spawn(process.execPath, args, { cwd: dir, env: {}, stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true });
    const kill = (outcome: ValidatorOutcome, problem: string) => {
      if (killedFor) return;
      killedFor = { outcome, problem };
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => kill('timeout', `it did not answer within ${timeoutMs} ms`), timeoutMs);
    const rssCap = memoryMb + VALIDATOR_RSS_MARGIN_MB;
    const watch =
      process.platform === 'linux'
        ? setInterval(() => {
            const rss = child.pid === undefined ? null : rssMb(child.pid);
            if (rss !== null && rss > rssCap) kill('out_of_memory', `it used more than ${rssCap} MiB of memory`);
          }, RSS_POLL_MS)
        : null;
    const finish = (r: ValidatorResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (watch) clearInterval(watch);
      resolve(r);
    };
    child.on('error', (e) => finish(result('spawn_failed', `it could not be started: ${e.message}`)));
    child.stdout.on('data', (d: Buffer) => {
      outBytes += d.length;
      if (outBytes > MAX_VALIDATOR_OUTPUT_BYTES) kill('output_too_large', `it printed more than ${MAX_VALIDATOR_OUTPUT_BYTES} bytes`);
      else out.push(d);
    });
    child.stderr.on('data', (d: Buffer) => {
      if (err.length < STDERR_KEEP_BYTES) err = Buffer.concat([err, d]).subarray(0, STDERR_KEEP_BYTES);
    });
    // The script may exit without reading its input: a closed pipe is its business, not an error of ours.
    child.stdin.on('error', () => {});
    child.stdin.end(json);
    child.on('close', (code, signal) => {
      if (killedFor) return finish(result(killedFor.outcome, killedFor.problem));
      const stderr = err.toString('utf8').trim();
      if (code !== 0) {
        if (/heap out of memory|Reached heap limit/i.test(stderr)) return finish(result('out_of_memory', `it ran out of its ${memoryMb} MiB heap`));
        const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
        return finish(result('crashed', `it ${how}${stderr ? `: ${lastLines(stderr)}` : ''}`));
      }
      const answer = readAnswer(Buffer.concat(out));
      if (typeof answer === 'string') return finish(result('bad_answer', answer));
      finish(result('answered', null, answer));
    });
  });
}

/** The end of a stderr excerpt (where an exception's message is), on one line. */
function lastLines(stderr: string): string {
  const lines = stderr.split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('at ') && !l.startsWith('Node.js v'));
  const text = lines.slice(-3).join(' | ');
  return text.length > 500 ? text.slice(0, 499) + '…' : text;
}
