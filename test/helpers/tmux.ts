/**
 * A real terminal for the terminal inbox's tests: a detached tmux session of a
 * given size running a command, driven with `send-keys` and read with
 * `capture-pane`. Each pane has its own tmux server (`-L` with a unique socket
 * name, `-f /dev/null`: no user config), so parallel runs never share one, and
 * `kill()` ends it. Waits poll the screen until the expected text appears,
 * bounded by a deadline; the screen at the deadline is in the failure message.
 */
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export const TMUX_AVAILABLE = spawnSync('tmux', ['-V'], { encoding: 'utf8' }).status === 0;
export const TMUX_SKIP = TMUX_AVAILABLE ? false : 'tmux is not installed: scripts/setup-system.sh installs it (the terminal inbox is tested in a real terminal)';

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export class TmuxPane {
  private socketPath: string | null = null;

  private constructor(
    readonly socket: string,
    /** Holds `exit=N` once the command ended. */
    private readonly statusFile: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  /** Start `argv` in a new `cols`×`rows` pane; `env` is the command's environment. */
  static start(argv: string[], opts: { cols: number; rows: number; env: Record<string, string | undefined>; dir: string }): TmuxPane {
    const socket = `vg-test-${process.pid}-${crypto.randomBytes(4).toString('hex')}`;
    const statusFile = path.join(opts.dir, `${socket}.status`);
    const env = { ...opts.env, LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' } as NodeJS.ProcessEnv;
    const pane = new TmuxPane(socket, statusFile, env);
    const command = `${argv.map(quote).join(' ')}; echo "exit=$?" > ${quote(statusFile)}`;
    pane.tmux(['-f', '/dev/null', 'new-session', '-d', '-s', 'inbox', '-x', String(opts.cols), '-y', String(opts.rows), command]);
    pane.socketPath = pane.tmux(['display-message', '-p', '-t', 'inbox', '#{socket_path}'], false).stdout.trim() || null;
    return pane;
  }

  private tmux(args: string[], check = true): { status: number | null; stdout: string } {
    const r = spawnSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8', env: this.env });
    if (check && r.status !== 0) throw new Error(`tmux ${args.join(' ')}: ${r.stderr}`);
    return { status: r.status, stdout: r.stdout };
  }

  /** The pane's screen as text, one line per row (trailing spaces trimmed by tmux). */
  capture(): string {
    const r = this.tmux(['capture-pane', '-p', '-t', 'inbox'], false);
    return r.status === 0 ? r.stdout : '';
  }

  /** The screen with its colours and attributes as SGR escapes (`capture-pane -e`): to see what is drawn in reverse video. */
  captureStyled(): string {
    const r = this.tmux(['capture-pane', '-p', '-e', '-t', 'inbox'], false);
    return r.status === 0 ? r.stdout : '';
  }

  /** Named keys (`Enter`, `Tab`, `NPage`) or single characters. */
  keys(...keys: string[]): void {
    this.tmux(['send-keys', '-t', 'inbox', ...keys]);
  }

  /** Text typed as is. */
  type(text: string): void {
    this.tmux(['send-keys', '-t', 'inbox', '-l', text]);
  }

  /** Poll until `test` holds for the screen (its match when a RegExp); fail with the last screen after `timeoutMs`. */
  async waitFor(test: RegExp | ((screen: string) => boolean), what: string, timeoutMs = 20_000): Promise<RegExpMatchArray | true> {
    const deadline = Date.now() + timeoutMs;
    let screen = '';
    for (;;) {
      screen = this.capture();
      if (test instanceof RegExp) {
        const m = screen.match(test);
        if (m) return m;
      } else if (test(screen)) return true;
      if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${what}; the screen:\n${screen}\n(exit: ${this.exitStatus() ?? 'still running'})`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** `exit=N` of the command once it ended, else null. */
  exitStatus(): string | null {
    try {
      return fs.readFileSync(this.statusFile, 'utf8').trim();
    } catch {
      return null;
    }
  }

  /** Wait until the command ended and its pane closed (the session is gone). */
  async waitEnded(what: string, timeoutMs = 20_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    while (this.tmux(['has-session', '-t', 'inbox'], false).status === 0 || this.exitStatus() === null) {
      if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${what}; the screen:\n${this.capture()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    return this.exitStatus()!;
  }

  /** End the tmux server (and whatever still runs in it), and remove its socket file (tmux leaves it behind). */
  kill(): void {
    this.tmux(['kill-server'], false);
    if (this.socketPath) fs.rmSync(this.socketPath, { force: true });
  }
}
