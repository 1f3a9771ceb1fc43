/**
 * Issue 22 §2 in the web inbox, in a real browser (chromium + playwright-core,
 * as web-inbox.test.ts): a proposal made by `plan --propose` shows its claim
 * with every cited fragment beside it (note, lines, heading, exact text,
 * status); after a cited sentence is edited, "Review again" shows that
 * fragment as changed and the `evidence` check failing.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { findOperation } from '../../src/ops/index.js';
import { EVIDENCE_CLAIM, EVIDENCE_DST, EVIDENCE_NOTES, editNote, planProposal } from '../helpers/plan-proposal.js';
import { serve } from '../helpers/serve.js';
import { tempDir, tempVault } from '../helpers/temp-vault.js';

// The callbacks handed to page.evaluate run in the browser, but this file is
// type-checked against Node's lib (no DOM): name the browser globals they use.
declare const document: any, window: any, Node: any, ClipboardEvent: any, DataTransfer: any;

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const skip = !fs.existsSync(CHROMIUM)
  ? `chromium is not installed at ${CHROMIUM}: run \`bash scripts/setup-system.sh\` to run the browser tests`
  : !findOperation({ name: 'plan' })
    ? 'plan is not part of this build'
    : undefined;

test('web inbox: a plan proposal shows its claim with the cited fragments beside it, and a changed one after review', { skip, timeout: 180_000 }, async () => {
  const { chromium } = await import('playwright-core');
  const v = tempVault(EVIDENCE_NOTES);
  const p = await planProposal(v);
  const served = await serve(v.root, v.home);
  const browser = await chromium.launchPersistentContext(tempDir('vaultgate-chromium-'), { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, viewport: { width: 1280, height: 860 } });
  try {
    const page = browser.pages()[0] ?? (await browser.newPage());
    await page.goto(served.url);
    await page.waitForSelector('body[data-ready="1"]');
    await page.locator(`#list li[data-id="${p.id}"]`).click();
    await page.waitForSelector(`#detail[data-proposal="${p.id}"] #claim`);
    assert.equal(await page.locator('#claim .claim-text').innerText(), EVIDENCE_CLAIM);
    const items = page.locator('#evidence li');
    assert.equal(await items.count(), 3);
    const row = (id: string) => page.locator(`#evidence li[data-id="${id}"]`);
    assert.equal(await row(p.frag('B', 2)).locator('.fragment').innerText(), 'Origin servers were overloaded in 2024.');
    assert.match(await row(p.frag('B', 2)).locator('.where').innerText(), /^B ops\/Cache lifetime\.md:8 \(Cache lifetime > Why\)$/);
    assert.match(await row(p.frag('A', 1)).locator('.where').innerText(), /reviews\/Origin load\.md:5 .*the link goes here/);
    assert.deepEqual(await items.evaluateAll((ls: any[]) => ls.map((l) => l.getAttribute('class'))), ['ok', 'ok', 'ok']);
    // the claim and its evidence come before the actions and the diff: judged first
    assert.ok(await page.evaluate(() => document.querySelector('#claim')!.compareDocumentPosition(document.querySelector('#detail .actions')!) === Node.DOCUMENT_POSITION_FOLLOWING));

    editNote(v.root, EVIDENCE_DST, 'overloaded in 2024', 'overloaded in 2025');
    await page.getByRole('button', { name: 'Review again' }).click();
    await page.waitForSelector(`#evidence li.changed[data-id="${p.frag('B', 2)}"]`);
    assert.match(await row(p.frag('B', 2)).locator('.mark').innerText(), /changed/);
    assert.match(await page.locator('#detail .checks li.warn').filter({ hasText: 'evidence' }).innerText(), /Origin servers were overloaded in 2024\./);
  } finally {
    await browser.close();
    await served.stop();
  }
});
