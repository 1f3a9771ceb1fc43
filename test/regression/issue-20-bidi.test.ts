import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import { test } from 'node:test';
import { CLI_BIN, runCli, runCliProcess } from '../helpers/run-cli.js';
import { serve } from '../helpers/serve.js';
import { tempDir, tempVault } from '../helpers/temp-vault.js';
import { TMUX_SKIP, TmuxPane } from '../helpers/tmux.js';

/**
 * Issue 20 §4: bytes `limit: \u202e0001` displayed as `limit: 1000` in the web
 * inbox, so the diff a person approved read differently from what is written.
 * The terminal inbox escaped bidi overrides, but not the marks (U+200F), zero-width
 * characters or line separators; the CLI's text rendering escaped nothing. Every
 * face now shows such characters as `<U+XXXX>` through one function
 * (src/visible-text.ts), and never draws them live.
 */
const sha = (s: string) => crypto.createHash('sha256').update(s).digest('hex');
const NOTE = '# Config\n\nlimit: 1000\n';
const NEW = 'limit: \u202e0001';
const TITLE = 'Lower the limit\u200f\u200b ok';

/** Characters that must never reach a screen live. */
const LIVE = /[\u202a-\u202e\u2066-\u2069\u200b-\u200f\u2028\u2029\u061c\ufeff]/;

async function setup(): Promise<{ root: string; home: string; id: string }> {
  const { root, home } = tempVault({ 'Config.md': NOTE });
  const r = await runCli(['propose', 'Config.md', '--replace', 'limit: 1000', '--with', NEW, '--base', sha(NOTE), '--title', TITLE, '--summary', 'line one\u2028line two', '--agent', 'cl\u202eaude'], { vault: root, home });
  assert.equal(r.exitCode, 0, r.stdout + r.stderr);
  return { root, home, id: r.json.proposal.id };
}

test('issue 20.4: the CLI text of review/show/proposals/log escapes bidi, format and separator characters', async () => {
  const { root, home, id } = await setup();
  for (const args of [['review', id], ['show', id], ['proposals'], ['log'], ['propose', 'Config.md', '--append', '--content', 'x\u2067y', '--base', sha(NOTE)]]) {
    const r = await runCli([...args, '--text'], { vault: root, home });
    assert.equal(r.exitCode, 0, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
    assert.doesNotMatch(r.stdout, LIVE, `${args.join(' ')} printed a live control character:\n${JSON.stringify(r.stdout)}`);
  }
  const review = await runCli(['review', id, '--text'], { vault: root, home });
  assert.ok(review.stdout.includes('+limit: <U+202E>0001'), review.stdout);
  const show = await runCli(['show', id, '--text'], { vault: root, home });
  assert.ok(show.stdout.includes('Lower the limit<U+200F><U+200B> ok'), show.stdout);
  // an error on a terminal quotes what the agent named: escaped too
  const err = await runCli(['show', 'p-9\u202e9', '--text'], { vault: root, home });
  assert.notEqual(err.exitCode, 0);
  assert.doesNotMatch(err.stderr, LIVE, err.stderr);
  // JSON stays exact: a program gets the bytes
  const json = await runCli(['show', id, '--json'], { vault: root, home });
  assert.equal(json.json.proposal.title, TITLE);
  assert.ok(json.json.diff.includes(`+${NEW}`));
});

test('issue 20.4: the terminal inbox (tmux) shows the escapes, in the list and in the diff', { skip: TMUX_SKIP }, async () => {
  const { root, home } = await setup();
  const env: Record<string, string | undefined> = { ...process.env, VAULTGATE_HOME: home };
  delete env.VAULTGATE_AGENT;
  delete env.VAULTGATE_VAULT;
  const pane = TmuxPane.start([process.execPath, CLI_BIN, '--vault', root, 'inbox'], { cols: 100, rows: 30, env, dir: tempDir('vaultgate-tmux-') });
  try {
    await pane.waitFor((s) => s.includes('Lower the limit<U+200F><U+200B>'), 'the title with its marks escaped');
    pane.keys('Enter');
    await pane.waitFor((s) => s.includes('+limit: <U+202E>0001'), 'the diff line with the override escaped');
    assert.doesNotMatch(pane.capture(), LIVE);
    pane.keys('q');
    pane.keys('q');
  } finally {
    pane.kill();
  }
});

const CHROMIUM = '/usr/bin/chromium';
test('issue 20.4: the web inbox (chromium) shows `limit: <U+202E>0001`, never the override live', { skip: fs.existsSync(CHROMIUM) ? false : `chromium is not installed at ${CHROMIUM}: run scripts/setup-system.sh`, timeout: 120_000 }, async () => {
  const { chromium } = await import('playwright-core');
  const { root, home, id } = await setup();
  const served = await serve(root, home);
  const browser = await chromium.launchPersistentContext(tempDir('vaultgate-chromium-'), {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const page = browser.pages()[0] ?? (await browser.newPage());
    await page.goto(served.url);
    await page.waitForSelector('body[data-ready="1"]');
    const item = page.locator(`#list li[data-id="${id}"]`);
    assert.ok((await item.innerText()).includes('Lower the limit<U+200F><U+200B> ok'), await item.innerText());
    await item.click();
    await page.waitForSelector(`#detail[data-proposal="${id}"] table.diff`);
    const added = await page.locator('#detail table.diff td.add').first().innerText();
    assert.equal(added, 'limit: <U+202E>0001');
    const all = await page.locator('body').innerText();
    assert.doesNotMatch(all, LIVE, 'a live control character on the page');
    assert.ok(all.includes('line one<U+2028>line two'), 'the summary');
    assert.ok(all.includes('cl<U+202E>aude'), 'the agent name');
    await page.click('#tab-history');
    await page.waitForSelector('#log tbody tr');
    assert.doesNotMatch(await page.locator('#log').innerText(), LIVE, 'the history');
    // what is written is still the exact bytes
    const shown = await runCliProcess(['show', id, '--json'], { vault: root, home });
    assert.ok(shown.json.diff.includes(`+${NEW}`));
  } finally {
    await browser.close();
    await served.stop();
  }
});
