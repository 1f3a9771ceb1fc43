/**
 * What the person reads on a terminal (issue 21 §4): the CLI's text renderings
 * say what the JSON says — the base an edit is proposed against, who links whom,
 * what a count counts — and every command in `--help` says what it does.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { test } from 'node:test';
import { runCli } from '../helpers/run-cli.js';
import { tempVault } from '../helpers/temp-vault.js';

test('note on a terminal ends with the sha256 line: the base an edit is proposed against', async () => {
  const text = '# Starter\n\nFeed it every 12 hours.\n';
  const { root, home } = tempVault({ 'Starter.md': text });
  const sha = crypto.createHash('sha256').update(text).digest('hex');
  const shown = await runCli(['note', 'Starter.md'], { vault: root, home, tty: true });
  assert.equal(shown.exitCode, 0, shown.stderr);
  assert.ok(shown.stdout.startsWith(text), 'the text comes first, unchanged');
  assert.match(shown.stdout, new RegExp(`^sha256 ${sha}\\b`, 'm'));
  // a section and a window of the note give the whole file's hash too (the base is always the file)
  const section = await runCli(['note', 'Starter.md', '--heading', 'Starter'], { vault: root, home, tty: true });
  assert.match(section.stdout, new RegExp(`^sha256 ${sha}\\b`, 'm'));
  const windowed = await runCli(['note', 'Starter.md', '--max-chars', '100'], { vault: root, home, tty: true });
  assert.match(windowed.stdout, new RegExp(`^sha256 ${sha}\\b`, 'm'));
});
