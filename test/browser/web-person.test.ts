/**
 * The person's side of the web inbox (issue 21 §4) in Debian's chromium,
 * against the compiled `vaultgate serve`: the History tab reads as sentences
 * with local times and shortened hashes (whole on hover and copy), and shows
 * a rollback as proposed, then as rolled back.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { runCliProcess } from '../helpers/run-cli.js';
import { serve, type Served } from '../helpers/serve.js';
import { tempDir, tempVault } from '../helpers/temp-vault.js';

// The callbacks handed to page.evaluate run in the browser, but this file is
// type-checked against Node's lib (no DOM): name the browser globals they use.
declare const document: any, window: any, Node: any, ClipboardEvent: any, DataTransfer: any;

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const skip = !fs.existsSync(CHROMIUM) ? `chromium is not installed at ${CHROMIUM}: run \`bash scripts/setup-system.sh\`` : undefined;
/** Not the machine's zone (UTC in CI), and not a whole-hour offset: a time shown in UTC would not match. */
const ZONE = 'Asia/Kolkata';

const PLANS = '# Plans and storage limits\n\n| Plan | Storage | Price |\n|---|---|---|\n| Standard | 1 GB | $4 |\n| Plus | 10 GB | $8 |\n';

async function cli(root: string, home: string, args: string[]): Promise<any> {
  const r = await runCliProcess(args, { vault: root, home });
  assert.equal(r.exitCode, 0, r.stdout + r.stderr);
  return r.json;
}

test('web inbox, the person’s side: History in sentences, local times, short hashes; changed words in the diff', { skip, timeout: 240_000 }, async (t) => {
  const { chromium } = await import('playwright-core');
  const { root, home } = tempVault({ 'Obsidian Sync/Plans and storage limits.md': PLANS });
  const note = 'Obsidian Sync/Plans and storage limits.md';
  const base = (await cli(root, home, ['note', note])).sha256;
  const p1 = await cli(root, home, ['propose', note, '--replace', '| Plus | 10 GB | $8 |', '--with', '| Plus | 100 GB | $8 |', '--base', base, '--title', 'Plus has 100 GB', '--agent', 'claude']);
  await cli(root, home, ['apply', 'p-1', '--review-hash', p1.review.review_hash]);
  const rb = await cli(root, home, ['rollback', 'p-1']);
  await cli(root, home, ['apply', rb.proposal.id, '--review-hash', rb.review.review_hash]);
  // a second change rolled back only in proposal (p-4 pending): not "rolled back" yet
  const soup = await cli(root, home, ['propose', 'Soup.md', '--content', '# Soup\n', '--base', 'none', '--title', 'Soup']);
  await cli(root, home, ['apply', soup.proposal.id, '--review-hash', soup.review.review_hash]);
  await cli(root, home, ['rollback', soup.proposal.id]);
  const log = (await cli(root, home, ['log'])).events as Array<{ seq: number; at: string; event: string; review_hash: string | null }>;

  const served: Served = await serve(root, home);
  const browser = await chromium.launchPersistentContext(tempDir('vaultgate-chromium-'), { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, viewport: { width: 1280, height: 860 }, timezoneId: ZONE });
  const page = browser.pages()[0] ?? (await browser.newPage());
  try {
    await page.goto(served.url);
    await page.waitForSelector('body[data-ready="1"]');
    await page.click('#tab-history');
    await page.waitForSelector('#log tbody tr');
    const row = (event: string) => page.locator(`#log tbody tr[data-event="${event}"]`);

    await t.test('one readable sentence per event, the rollback as a pair', async () => {
      assert.equal(await row('applied').count(), 3);
      const applied = await row('applied').last().locator('.what').innerText();
      assert.equal(applied, `applied p-1: ${note}`);
      assert.equal(await row('rollback_proposed').last().locator('.what').innerText(), 'proposed rolling back p-1 as p-2 (pending)');
      assert.equal(await row('rollback_proposed').first().locator('.what').innerText(), 'proposed rolling back p-3 as p-4 (pending)');
      assert.equal(await row('rolled_back').locator('.what').innerText(), `rolled back p-1 by applying p-2: ${note}`);
      assert.equal(await row('proposed').last().locator('.what').innerText(), `proposed p-1: “Plus has 100 GB” (${note})`);
      assert.equal(await row('rolled_back').count(), 1, 'p-3 is not rolled back: its rollback is only proposed');
      const table = await page.locator('#log').innerText();
      assert.ok(!/[0-9a-f]{64}/.test(table), 'no whole 64-hex hash in the text');
      assert.ok(!/"changed_paths"|\{"/.test(table), 'no raw JSON');
    });

    await t.test('times in the browser’s local time, UTC on hover', async () => {
      const first = log[0]!;
      const expected = new Intl.DateTimeFormat('sv-SE', { timeZone: ZONE, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false }).format(new Date(first.at));
      const cell = page.locator(`#log tbody tr[data-seq="${first.seq}"] td`).first();
      assert.equal(await cell.innerText(), expected);
      assert.equal(await cell.getAttribute('title'), `${first.at} (UTC)`);
    });

    await t.test('hashes are shortened, whole on hover and when copied', async () => {
      const full = log.find((e) => e.event === 'applied')!.review_hash!;
      const code = page.locator(`#log code.hash[data-full="${full}"]`).first();
      assert.equal(await code.innerText(), `${full.slice(0, 12)}…`);
      assert.equal(await code.getAttribute('title'), full);
      const copied = await code.evaluate((node: any) => {
        const range = document.createRange();
        range.selectNodeContents(node);
        const sel = window.getSelection()!;
        sel.removeAllRanges();
        sel.addRange(range);
        const ev = new ClipboardEvent('copy', { clipboardData: new DataTransfer(), bubbles: true, cancelable: true });
        node.dispatchEvent(ev);
        return ev.clipboardData!.getData('text/plain');
      });
      assert.equal(copied, full);
    });

    await t.test('the diff emphasises the changed words inside a changed line: the one cell of the table row', async () => {
      await page.click('#tab-queue');
      await page.selectOption('#f-state', '');
      await page.locator('#list li[data-id="p-1"]').click();
      await page.waitForSelector('#detail[data-proposal="p-1"] table.diff');
      assert.match(await page.locator('#detail').innerText(), /rolled back by p-2/);
      await page.locator('#list li[data-id="p-3"]').click();
      await page.waitForSelector('#detail[data-proposal="p-3"]');
      assert.match(await page.locator('#detail').innerText(), /rollback proposed as p-4 \(pending\)/);
      assert.ok(!/rolled back by/.test(await page.locator('#detail').innerText()));
      await page.locator('#list li[data-id="p-1"]').click();
      await page.waitForSelector('#detail[data-proposal="p-1"] table.diff');
      for (const mode of ['side by side', 'unified']) {
        await page.locator('#detail .modes button', { hasText: mode }).click();
        await page.waitForSelector('#detail table.diff td.add .we');
        assert.deepEqual(await page.locator('#detail table.diff td.add .we').allInnerTexts(), ['100'], mode);
        assert.deepEqual(await page.locator('#detail table.diff td.del .we').allInnerTexts(), ['10'], mode);
        assert.equal(await page.locator('#detail table.diff td.add').filter({ has: page.locator('.we') }).innerText(), '| Plus | 100 GB | $8 |');
      }
    });
  } finally {
    await browser.close();
    await served.stop();
  }
});
