/**
 * Issue 20.1 in a real browser: an agent (the MCP SDK's client over stdio)
 * asks to send vault text to a provider that is not on this machine and is
 * refused; the web inbox shows the pending consent request live — destination,
 * purpose, byte count, the notes — the person approves it (Approve… → confirm)
 * and the agent's next identical call sends, once. Declining refuses the
 * identical call. The provider is a fake on 127.0.0.1 named by `0.0.0.0`
 * (helpers/fake-provider.ts offMachineUrl): no traffic leaves loopback.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI_BIN, runCliProcess } from '../helpers/run-cli.js';
import { offMachineUrl, startFakeProvider, type FakeProvider, type ReceivedRequest } from '../helpers/fake-provider.js';
import { serve } from '../helpers/serve.js';
import { tempDir, tempVault } from '../helpers/temp-vault.js';

// The callbacks handed to page.evaluate run in the browser, but this file is
// type-checked against Node's lib (no DOM): name the browser globals they use.
declare const document: any, window: any, Node: any, ClipboardEvent: any, DataTransfer: any;

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const skip = fs.existsSync(CHROMIUM) ? undefined : `chromium is not installed at ${CHROMIUM}: run \`bash scripts/setup-system.sh\``;

const NOTES = {
  'ops/Cache lifetime.md': '# Cache lifetime\n\nThe edge cache keeps pages for ten minutes.\n',
  'dev/Cache lifetime.md': '# Cache lifetime\n\nPages stay in the edge cache for ten minutes.\n',
  'notes/<img src=x onerror="window.__pwned=1">.md': '# Clip\n\nA hostile name.\n',
};

const providers: FakeProvider[] = [];
after(async () => {
  for (const p of providers) await p.close();
});

const embed = (req: ReceivedRequest) => ({
  body: { object: 'list', data: (req.json.input as string[]).map((t, index) => ({ object: 'embedding', index, embedding: [...'aeiou'].map((c) => t.split(c).length) })) },
});

test('web inbox: a pending consent request, approved by the person in chromium, lets the agent’s next identical call send once', { skip, timeout: 180_000 }, async () => {
  const { chromium } = await import('playwright-core');
  const p = await startFakeProvider();
  providers.push(p);
  p.reply(embed);
  const url = offMachineUrl(p);
  const { root, home } = tempVault(NOTES);
  fs.mkdirSync(path.join(home, 'config'), { recursive: true });
  fs.writeFileSync(path.join(home, 'config', 'config.yaml'), JSON.stringify({ providers: { far: { kind: 'openai', url: `${url}/v1`, embed_model: 'toy', attempts: 1 } } }));

  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI_BIN, 'mcp', '--vault', root], env: { ...(process.env as Record<string, string>), VAULTGATE_HOME: home }, stderr: 'pipe' });
  const agent = new Client({ name: 'claude-code', version: '1.0.0' });
  await agent.connect(transport);
  const served = await serve(root, home);
  const browser = await chromium.launchPersistentContext(tempDir('vaultgate-chromium-'), { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, viewport: { width: 1280, height: 860 } });
  const similar = () => agent.callTool({ name: 'similar', arguments: { note: 'ops/Cache lifetime.md', provider: 'far' } }) as Promise<any>;
  try {
    const page = browser.pages()[0] ?? (await browser.newPage());
    await page.goto(served.url);
    await page.waitForSelector('body[data-ready="1"]');
    assert.equal(await page.locator('#consent').isHidden(), true, 'nothing to consent to yet');
    await page.waitForSelector('#live:not(.off)');

    // The agent asks; the page shows the request live (the SSE queue event), with what and where.
    const refused = await similar();
    assert.equal(refused.isError, true);
    const id = JSON.parse(refused.content[0].text).error.details.consent_request as string;
    const item = page.locator(`#consent-list li[data-consent="${id}"]`);
    await item.waitFor({ timeout: 15_000 });
    const text = await item.innerText();
    assert.match(text, new RegExp(`Send vault text to ${new URL(url).host.replace(/[.]/g, '\\.')} \\(not this machine\\) for embed`));
    assert.ok(text.includes(`${url}/v1/embeddings`), text);
    assert.match(text, /3 notes, 3 texts, 1 request, \d+ bytes/);
    assert.match(text, /asked by mcp:claude-code through mcp/);
    assert.ok(text.includes('notes/<img src=x onerror="window.__pwned=1">.md'), 'a hostile path is shown as text');
    assert.equal(await page.locator('#consent img').count(), 0);
    assert.equal(await page.evaluate(() => (window as any).__pwned), undefined);
    assert.equal(p.requests.length, 0);

    // Approve… asks once more, naming the host and the bytes; then the agent's identical call sends.
    await item.locator('button', { hasText: 'Approve' }).click();
    await page.waitForSelector('#consent-confirm');
    assert.match(await page.locator('#consent-confirm').innerText(), /Send exactly this \(\d+ bytes of 3 notes\) to .* which is not this machine, once\?/);
    assert.equal(p.requests.length, 0, 'Approve… alone approves nothing');
    await page.locator('#consent-confirm button', { hasText: 'Approve' }).click();
    await page.waitForSelector('.notice.ok');
    assert.match(await page.locator('#notice').innerText(), new RegExp(`Approved ${id}`));
    await page.waitForFunction(() => document.querySelectorAll('#consent-list li').length === 0);

    const sent = await similar();
    assert.equal(sent.isError, undefined, JSON.stringify(sent).slice(0, 300));
    assert.equal(p.requests.length, 1);
    const records = await runCliProcess(['consent', 'list'], { vault: root, home });
    assert.equal(records.json.consents[0].via, 'web');
    assert.equal(records.json.consents[0].request_id, id);

    // Declined: a new plan (an edited note) is asked for, the person declines, the identical call is refused.
    fs.appendFileSync(path.join(root, 'dev/Cache lifetime.md'), '\nEdited.\n');
    const again = await similar();
    const id2 = JSON.parse(again.content[0].text).error.details.consent_request as string;
    const item2 = page.locator(`#consent-list li[data-consent="${id2}"]`);
    await item2.waitFor({ timeout: 15_000 });
    await item2.locator('button', { hasText: 'Decline' }).click();
    await page.waitForFunction(() => /Declined/.test(document.getElementById('notice')!.textContent || ''));
    const declined = await similar();
    assert.equal(JSON.parse(declined.content[0].text).error.code, 'CONSENT_DECLINED');
    assert.equal(p.requests.length, 1);
  } finally {
    await browser.close();
    await agent.close();
    await served.stop();
  }
});
