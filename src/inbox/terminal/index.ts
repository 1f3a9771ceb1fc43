/**
 * inbox/terminal: `vaultgate inbox`, a full-screen terminal face over the
 * proposal operations (issue #8 §6). A face with no logic of its own: every
 * action is an operation of the table run as the CLI runs it (backend.ts); the
 * model (model.ts) is a pure `update(state, msg)` that decides only what is on
 * screen and which key means what; screen.ts draws a state as text lines; Ink
 * (app.tsx, loaded only here) puts them on the terminal.
 *
 * - {@link runTerminalInbox}: open the vault, run the inbox until `q`.
 * - {@link requireTerminal}: the refusal when stdin or stdout is not a terminal.
 */
import { VaultgateError } from '../../errors.js';
import type { OpContext } from '../../ops/index.js';
import { VaultSession } from '../../session/index.js';
import { opsBackend } from './backend.js';
import { InboxController } from './controller.js';

export { InboxController } from './controller.js';
export { opsBackend, errorView, type InboxBackend } from './backend.js';
export { update, initialState, layout, detailBody, actionsFor, targetId, VIEWS, type InboxState, type Msg, type Effect, type View } from './model.js';
export { frame, frameText, queueColumns, type Line, type Segment } from './screen.js';
export { keysFromInk, type Key } from './keys.js';

type Env = Record<string, string | undefined>;

export interface TerminalInboxOptions {
  vault: string | undefined;
  env: Env;
  cwd: string;
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  /** Where bugs' stacks go once the screen is restored. */
  stderr: (s: string) => void;
}

/** USAGE unless both ends are a terminal: without one the inbox could only hang or scribble escape codes into a pipe. */
export function requireTerminal(stdinIsTTY: boolean, stdoutIsTTY: boolean): void {
  if (stdinIsTTY && stdoutIsTTY) return;
  throw new VaultgateError('USAGE', `vaultgate inbox needs a terminal (its ${stdinIsTTY ? 'output' : 'input'} is not one)`, {
    hint: 'From a script or an agent use `vaultgate proposals`, `vaultgate review ID`, `vaultgate apply ID --review-hash H` and `vaultgate decline ID --reason TEXT`.',
  });
}

export async function runTerminalInbox(opts: TerminalInboxOptions): Promise<number> {
  requireTerminal(Boolean(opts.stdin.isTTY), Boolean(opts.stdout.isTTY));
  const session = VaultSession.open({ vault: opts.vault, env: opts.env, cwd: opts.cwd, keepIndexOpen: true });
  try {
    // The person at the keyboard is the operator: the audit log must not name an agent
    // whose VAULTGATE_AGENT happens to be set in this shell.
    const { VAULTGATE_AGENT: _agent, ...env } = opts.env;
    const ctx: OpContext = {
      face: 'terminal',
      env,
      cwd: opts.cwd,
      session: () => session,
      readStdin() {
        throw new VaultgateError('USAGE', 'the terminal inbox reads keys, not documents, from its input', { hint: 'Use the CLI verbs for file input.' });
      },
    };
    const controller = new InboxController(opsBackend(ctx), { rows: opts.stdout.rows || 24, cols: opts.stdout.columns || 80 }, Date.now());
    // Ink draws nothing until exit when it believes it runs in CI (is-in-ci reads CI when
    // ink loads); with a terminal on both ends this is an interactive session whatever CI says.
    delete process.env.CI;
    delete process.env.CONTINUOUS_INTEGRATION;
    const { runInk } = await import('./app.js');
    await runInk(controller, opts);
    for (const e of controller.internalErrors) opts.stderr(((e as Error)?.stack ?? String(e)) + '\n');
    return 0;
  } finally {
    session.close();
  }
}
