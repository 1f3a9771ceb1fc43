/**
 * The web inbox in a real browser: Debian's chromium driven by playwright-core
 * (scripts/setup-system.sh installs it; CI runs that first) against the
 * compiled `vaultgate serve` on a temporary vault with proposals made through
 * the CLI. Open the printed URL, see the queue, filter it, open a proposal,
 * approve it (review → apply with that review's hash) and see the vault file
 * change; decline with a reason; roll back; the history; live refresh when an
 * agent proposes; and the attacks: no token, a foreign Host (a DNS-rebound
 * name), a foreign Origin (another local page), a hostile note.
 *
 * `VAULTGATE_SCREENSHOTS=1` also saves the main screens to docs/screenshots/
 * (used in the README); otherwise nothing is written in the repository.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { test } from 'node:test';
import { findOperation } from '../../src/ops/index.js';
import { REPO_ROOT, runCliProcess } from '../helpers/run-cli.js';
import { serve, type Served } from '../helpers/serve.js';
import { tempDir, tempVault } from '../helpers/temp-vault.js';

// The callbacks handed to page.evaluate run in the browser, but this file is
// type-checked against Node's lib (no DOM): name the browser globals they use.
declare const document: any, window: any, Node: any, ClipboardEvent: any, DataTransfer: any;

const CHROMIUM = '/usr/bin/chromium';
const SHOTS = process.env.VAULTGATE_SCREENSHOTS === '1' ? path.join(REPO_ROOT, 'docs/screenshots') : null;
/** The flags CI runs chromium with: no sandbox (containers), no GPU, nothing fetched from the network. */
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
/** A name that resolves to 127.0.0.1, as a DNS-rebinding page's would. */
const REBOUND_HOST = 'rebound.attacker.test';

const skip = !fs.existsSync(CHROMIUM)
  ? `chromium is not installed at ${CHROMIUM}: run \`bash scripts/setup-system.sh\` (as root on Debian it installs it) to run the browser tests`
  : !findOperation({ name: 'propose' })
    ? 'the proposals core (propose/review/apply) is not part of this build'
    : undefined;

const HOSTILE = 'Ideas from a web clip: <img src=x onerror="window.__pwned=1"> and </script><script>window.__pwned=2</script> end.';
const NOTES = {
  'Home.md': '# Home\n\nStart at [[Bread]].\n',
  'Recipes/Bread.md': '# Bread\n\n## Dough\n\nMix 500 g flour with 350 g water.\nRest for 30 minutes.\n\n## Bake\n\nBake at 230 °C for 40 minutes.\n',
  'Recipes/Soup.md': '# Soup\n\nSimmer the stock for an hour.\n',
  'Journal/2026-01-02.md': '# 2026-01-02\n\nBaked [[Bread]] today.\n',
};

async function propose(root: string, home: string, args: string[], agent: string): Promise<{ id: string }> {
  const r = await runCliProcess(['propose', ...args, '--agent', agent], { vault: root, home });
  assert.equal(r.exitCode, 0, r.stdout + r.stderr);
  return r.json.proposal;
}

async function sha(root: string, home: string, note: string): Promise<string> {
  return (await runCliProcess(['note', note], { vault: root, home })).json.sha256;
}

test('web inbox in a real browser', { skip, timeout: 240_000 }, async (t) => {
  const { chromium } = await import('playwright-core');
  const { root, home } = tempVault(NOTES);
  const p1 = await propose(root, home, ['Recipes/Bread.md', '--replace', 'Rest for 30 minutes.', '--with', 'Rest for 45 minutes, covered.', '--base', await sha(root, home, 'Recipes/Bread.md'), '--title', 'Longer rest for the dough', '--summary', 'The dough was too dense last time.'], 'claude');
  const p2 = await propose(root, home, ['Ideas/Clip.md', '--content', `# Clip\n\n${HOSTILE}\n`, '--base', 'none', '--title', 'Save a web clip <b>bold</b>'], 'codex');
  const p3 = await propose(root, home, ['Recipes/Soup.md', '--append', '--content', '\nAdd salt at the end.\n', '--base', await sha(root, home, 'Recipes/Soup.md'), '--title', 'Salt the soup'], 'pi');

  // Started from a shell where an agent's name is set: what the page does is still the operator's.
  const served: Served = await serve(root, home, [], { VAULTGATE_AGENT: 'claude' });
  const userData = tempDir('vaultgate-chromium-');
  const browser = await chromium.launchPersistentContext(userData, {
    executablePath: CHROMIUM,
    headless: true,
    args: [...CHROMIUM_ARGS, `--host-resolver-rules=MAP ${REBOUND_HOST} 127.0.0.1`],
    viewport: { width: 1280, height: 860 },
  });
  const dialogs: string[] = [];
  const page = browser.pages()[0] ?? (await browser.newPage());
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  const shot = async (name: string) => {
    if (!SHOTS) return;
    fs.mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
  };
  const item = (id: string) => page.locator(`#list li[data-id="${id}"]`);
  /** Click a proposal in the queue and wait until the detail shows that one (not the one shown before). */
  const open = async (id: string) => {
    await item(id).click();
    await page.waitForSelector(`#detail[data-proposal="${id}"]`);
  };

  try {
    await t.test('without the token the page shows nothing and the API answers 401', async () => {
      await page.goto(`http://127.0.0.1:${served.port}/`);
      await page.waitForSelector('body[data-ready="0"]');
      assert.match(await page.locator('#notice').innerText(), /Not signed in/);
      assert.equal(await page.locator('#list li').count(), 0);
      assert.equal(await page.evaluate(() => fetch('/api/proposals').then((r) => r.status)), 401);
      assert.equal(await page.evaluate(() => fetch('/api/session', { method: 'POST' }).then((r) => r.status)), 401);
    });

    await t.test('the printed URL opens the queue: pending proposals with title, agent and files; the token leaves the address bar', async () => {
      await page.goto(served.url);
      await page.waitForSelector('body[data-ready="1"]');
      assert.ok(!page.url().includes('token'), page.url());
      assert.equal(await page.locator('#list li').count(), 3);
      assert.match(await item(p1.id).innerText(), /Longer rest for the dough/);
      assert.match(await item(p1.id).innerText(), /claude/);
      assert.match(await item(p2.id).innerText(), /Save a web clip <b>bold<\/b>/, 'a title is text, never markup');
      assert.match(await page.locator('#vault').innerText(), new RegExp(path.basename(root)));
      await shot('inbox-queue');
    });

    await t.test('the queue filters by agent and by state', async () => {
      await page.selectOption('#f-agent', 'codex');
      await page.waitForFunction(() => document.querySelectorAll('#list li').length === 1);
      assert.equal(await item(p2.id).count(), 1);
      await page.selectOption('#f-agent', '');
      await page.selectOption('#f-state', 'applied');
      await page.waitForFunction(() => document.querySelectorAll('#list li').length === 0);
      await page.selectOption('#f-state', 'pending');
      await page.waitForFunction(() => document.querySelectorAll('#list li').length === 3);
    });

    await t.test('a hostile note is shown as text and runs nothing', async () => {
      await open(p2.id);
      await page.waitForSelector('#detail .file');
      const detail = await page.locator('#detail').innerText();
      assert.ok(detail.includes('<img src=x onerror="window.__pwned=1">'), 'the markup is visible as text');
      assert.ok(detail.includes('</script><script>window.__pwned=2</script>'));
      assert.equal(await page.locator('#detail img, #detail script, #detail b').count(), 0, 'no element came from note text');
      assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined);
      assert.equal(await page.locator('script').count(), 1, 'only app.js');
      assert.deepEqual(dialogs, []);
    });

    await t.test('one proposal: side-by-side and unified diff with coloured Markdown, its checks, then approve → the vault file changes', async () => {
      await open(p1.id);
      await page.waitForSelector('#detail table.diff.split');
      assert.match(await page.locator('#detail h2').innerText(), /Longer rest for the dough/);
      assert.match(await page.locator('#detail .summary').innerText(), /too dense/);
      assert.match(await page.locator('#detail table.diff.split td.del').first().innerText(), /Rest for 30 minutes\./);
      assert.match(await page.locator('#detail table.diff.split td.add').first().innerText(), /Rest for 45 minutes, covered\./);
      assert.ok((await page.locator('#detail .md-h').count()) > 0, 'headings are coloured');
      assert.ok((await page.locator('#detail .checks li').count()) > 0, 'the review checks');
      await shot('inbox-proposal');
      await page.locator('#detail .modes button', { hasText: 'unified' }).first().click();
      await page.waitForSelector('#detail table.diff.unified');
      assert.match(await page.locator('#detail table.diff.unified td.add').first().innerText(), /45 minutes/);

      const before = fs.readFileSync(path.join(root, 'Recipes/Bread.md'), 'utf8');
      await page.locator('#detail button', { hasText: 'Approve' }).click();
      await page.waitForSelector('#confirm');
      assert.match(await page.locator('#confirm').innerText(), /Apply exactly this change/);
      await shot('inbox-approve');
      await page.locator('#confirm button', { hasText: 'Apply' }).click();
      await page.waitForSelector('.notice.ok');
      assert.match(await page.locator('#notice').innerText(), new RegExp(`Applied ${p1.id} as `));
      const after = fs.readFileSync(path.join(root, 'Recipes/Bread.md'), 'utf8');
      assert.equal(after, before.replace('Rest for 30 minutes.', 'Rest for 45 minutes, covered.'));
      const shown = await runCliProcess(['show', p1.id], { vault: root, home });
      assert.equal(shown.json.proposal.state, 'applied');
    });

    await t.test('decline with a reason: the proposal is declined and the log says why', async () => {
      await page.selectOption('#f-state', 'pending');
      await open(p3.id);
      await page.waitForSelector('#decline-reason');
      await page.locator('#detail button', { hasText: 'Decline' }).click();
      await page.waitForSelector('.notice.error');
      assert.match(await page.locator('#notice').innerText(), /Say why/, 'a reason is required');
      await page.fill('#decline-reason', 'Salt goes in earlier.');
      await page.locator('#detail button', { hasText: 'Decline' }).click();
      await page.waitForSelector('.notice.ok');
      const shown = await runCliProcess(['show', p3.id], { vault: root, home });
      assert.equal(shown.json.proposal.state, 'declined');
      assert.equal(shown.json.proposal.declined_reason, 'Salt goes in earlier.');
      assert.equal(fs.readFileSync(path.join(root, 'Recipes/Soup.md'), 'utf8'), NOTES['Recipes/Soup.md']);
      const log = await runCliProcess(['log', '--proposal', p3.id], { vault: root, home });
      assert.ok(log.json.events.some((e: { event: string; actor: string }) => e.event === 'declined' && e.actor === 'operator'));
    });

    await t.test('roll back an applied proposal: a new proposal with the inverse change', async () => {
      await page.selectOption('#f-state', 'applied');
      await open(p1.id);
      await page.locator('#detail button', { hasText: 'Roll back' }).click();
      await page.waitForSelector('.notice.ok');
      assert.match(await page.locator('#notice').innerText(), /the rollback of/);
      const list = await runCliProcess(['proposals', '--state', 'pending'], { vault: root, home });
      const rb = list.json.proposals.find((p: { rollback_of: string | null }) => p.rollback_of === p1.id);
      assert.ok(rb, 'a pending rollback proposal exists');
      await page.waitForSelector(`#list li[data-id="${rb.id}"]`);
    });

    await t.test('history: the audit log, newest first', async () => {
      await page.click('#tab-history');
      await page.waitForSelector('#log tbody tr');
      const text = await page.locator('#log').innerText();
      for (const e of ['proposed', 'applied', 'declined', 'proposed rolling back']) assert.match(text, new RegExp(e));
      await shot('inbox-history');
      await page.click('#tab-queue');
    });

    await t.test('live refresh: a proposal made by an agent appears without reloading', async () => {
      await page.selectOption('#f-state', 'pending');
      const p5 = await propose(root, home, ['Recipes/Soup.md', '--append', '--content', '\nServe hot.\n', '--base', await sha(root, home, 'Recipes/Soup.md'), '--title', 'Serve it hot'], 'claude');
      await page.waitForSelector(`#list li[data-id="${p5.id}"]`, { timeout: 15_000 });
    });

    await t.test('a decline reason being typed survives a live refresh (the pane is redrawn when the queue changes)', async () => {
      const pending = await runCliProcess(['proposals', '--state', 'pending'], { vault: root, home });
      const id = (pending.json.proposals as Array<{ id: string }>)[0]!.id;
      await open(id);
      await page.locator('#decline-reason').click();
      await page.keyboard.type('Not this week');
      // a mark on the pane's heading: gone once the pane is redrawn
      await page.evaluate(() => document.querySelector('#detail h2')!.setAttribute('data-before', '1'));
      const other = await propose(root, home, ['Ideas/Later.md', '--content', 'later\n', '--base', 'none', '--title', 'Made while the person types'], 'codex');
      await page.waitForSelector(`#list li[data-id="${other.id}"]`, { timeout: 15_000 });
      await page.waitForSelector('#detail h2:not([data-before])', { timeout: 15_000 });
      // the queue event redrew the detail pane: the same text, and the cursor still in the box at its end
      await page.waitForFunction(() => document.activeElement?.id === 'decline-reason', undefined, { timeout: 5_000 });
      await page.keyboard.type(', maybe next.');
      assert.equal(await page.locator('#decline-reason').inputValue(), 'Not this week, maybe next.');
      await page.fill('#decline-reason', '');
    });

    await t.test('a large diff is paged (issue 20 §8): first rows, long lines cut, buttons for more; Apply applies the whole change', async () => {
      const long = 'word '.repeat(3000).trim();
      const content = `# Big\n\n${long}\n` + Array.from({ length: 1200 }, (_, i) => `line ${i}\n`).join('');
      const big = await propose(root, home, ['Big.md', '--content', content, '--base', 'none', '--title', 'A big note'], 'claude');
      await page.waitForSelector(`#list li[data-id="${big.id}"]`, { timeout: 15_000 });
      await open(big.id);
      await page.waitForSelector('#detail .pager');
      assert.match(await page.locator('#detail .file .pager').first().innerText(), /Showing 500 of \d+ diff lines/);
      const rows = () => page.locator('#detail table.diff tr').count();
      const first = await rows();
      assert.ok((await page.locator('#detail table.diff .cut').count()) === 1, 'the long line is cut, saying so');
      assert.equal(await page.locator('#detail table.diff td', { hasText: 'line 1199' }).count(), 0, 'rows past the page are not drawn');
      await page.locator('#detail .pager button', { hasText: 'Show 500 more' }).click();
      assert.ok((await rows()) > first, 'more rows are drawn');
      await page.locator('#detail .pager button', { hasText: 'Show whole lines' }).click();
      assert.equal(await page.locator('#detail table.diff .cut').count(), 0);
      await page.locator('#detail button', { hasText: 'Approve' }).click();
      await page.waitForSelector('#confirm');
      assert.match(await page.locator('#confirm-paged').innerText(), /not shown.*Apply applies the whole change/);
      await page.locator('#confirm button', { hasText: 'Apply' }).click();
      await page.waitForSelector('.notice.ok');
      assert.equal(fs.readFileSync(path.join(root, 'Big.md'), 'utf8'), content, 'the whole change, shown or not');
    });

    await t.test('refused: a DNS-rebound host name, and another local page posting to the API', async () => {
      // The same server reached under another name (DNS rebinding): refused before anything is served.
      const rebound = await page.context().newPage();
      const resp = await rebound.goto(`http://${REBOUND_HOST}:${served.port}/`);
      assert.equal(resp?.status(), 403);
      const apiStatus = await rebound.evaluate(() => fetch('/api/proposals').then((r) => r.status));
      assert.equal(apiStatus, 403);
      await rebound.close();

      // Another local page, in the browser that holds the session cookie, posts a decline: refused (Origin, CSRF).
      const target = await propose(root, home, ['Recipes/Bread.md', '--append', '--content', '\nEnjoy.\n', '--base', await sha(root, home, 'Recipes/Bread.md'), '--title', 'Target of a forged request'], 'claude');
      const evil = http.createServer((_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/html' });
        res.end(
          `<!doctype html><script>
            const url = 'http://127.0.0.1:${served.port}/api/proposals/${target.id}/decline';
            Promise.allSettled([
              fetch(url, { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'Content-Type': 'text/plain' }, body: JSON.stringify({ reason: 'forged' }) }),
              fetch(url, { method: 'POST', credentials: 'include', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ reason: 'forged' }) }),
            ]).then((r) => { document.title = 'done:' + r.map((x) => x.status).join(','); });
          </script>`,
        );
      });
      await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', () => resolve()));
      try {
        const attacker = await page.context().newPage();
        await attacker.goto(`http://127.0.0.1:${(evil.address() as { port: number }).port}/`);
        await attacker.waitForFunction(() => document.title.startsWith('done:'));
        await attacker.close();
      } finally {
        evil.close();
      }
      const shown = await runCliProcess(['show', target.id], { vault: root, home });
      assert.equal(shown.json.proposal.state, 'pending', 'the forged decline did not happen');
    });
    assert.deepEqual(dialogs, [], 'no script from note text ever ran');
  } finally {
    await browser.close();
    await served.stop();
  }
});
