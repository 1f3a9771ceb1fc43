import fs from 'node:fs';

/**
 * Ask the person at this terminal a yes/no question: the CLI's `confirm`
 * (ops/operation.ts), used by `--consent` and `consent approve`. The question
 * goes to /dev/tty and the answer is read from it, not from stdout/stdin: a
 * piped `--json` run still asks the person, and what it prints never carries
 * anything an agent could hand back as a consent.
 *
 * Only when stdin is a terminal too: a command an agent's shell runs has a pipe
 * or nothing there, and gets null ("no terminal to ask on") even when the
 * process happens to have a controlling terminal. This is a guard against an
 * agent answering for the person, not a proof of one: a program can fake a
 * terminal (`script`, a pty); the skill's --guard rules deny agents `--consent`
 * and the consent verbs for that (docs/similar.md).
 */
export function ttyConfirm(question: string): boolean | null {
  if (!process.stdin.isTTY) return null;
  let fd: number;
  try {
    fd = fs.openSync('/dev/tty', 'r+');
  } catch {
    return null;
  }
  try {
    fs.writeSync(fd, question);
    const answer = readLine(fd);
    if (answer === null) return null;
    const yes = /^\s*yes\s*$/i.test(answer);
    fs.writeSync(fd, yes ? 'sending.\n' : 'cancelled: nothing was sent.\n');
    return yes;
  } finally {
    fs.closeSync(fd);
  }
}

/** One line from the terminal (null at end of input), waiting while the descriptor is not ready. */
function readLine(fd: number): string | null {
  const buf = Buffer.alloc(256);
  let line = '';
  for (;;) {
    let n: number;
    try {
      n = fs.readSync(fd, buf, 0, buf.length, null);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
      continue;
    }
    if (n === 0) return line === '' ? null : line;
    line += buf.toString('utf8', 0, n);
    const nl = line.indexOf('\n');
    if (nl >= 0) return line.slice(0, nl).replace(/\r$/, '');
    if (line.length > 4096) return line;
  }
}
