/**
 * Issue 21 §2, through the MCP SDK's client over real stdio: what the MCP face
 * says names tools and their arguments, never CLI flags or shell commands
 * (tools/list, the instructions, prompts, resources and a sample of error
 * results); tools/list for the default tool set stays ≤ 12,000 characters of
 * compact JSON; every result's text block is the JSON of its structured result
 * (so a host that shows only text still gets sha256, whole evidence, cursors),
 * bounded by --max-output-chars like the structured one, and a cut is marked in
 * the data (with the offset that continues a paged list); with --allow-apply the apply tool says plainly that the client's
 * approval prompt is then the only person in the loop.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { OPERATIONS } from '../../src/ops/index.js';
import { CLI_BIN, runCliProcess } from '../helpers/run-cli.js';
import { tempVault } from '../helpers/temp-vault.js';

const NOTES: Record<string, string> = {
  'Home.md': '# Home\nSee [[Rules#Setup]] and [[Long]].\n',
  'Games/Rules.md': '# Rules\n## Setup\nEach player places two settlements.\n## Robber\nOn a 7 the robber moves; discard half of your cards, rounded down, when you hold more than seven.\n',
  ...Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`Many/Note ${i}.md`, `# Note ${i}\nThe robber waits by the harbour in paragraph ${i}; ${'the harbour master counts the ships. '.repeat(1 + (i % 4))}\n`])),
  'Long.md': ['# Long', ...Array.from({ length: 120 }, (_, i) => `## Part ${i}\n\nParagraph ${i} about the robber and the harbour, with words enough to fill a section of the note, line ${i}.\n`)].join('\n'),
};

/** Every CLI verb's first word, and the faces' own verbs. */
const VERBS = [...new Set([...OPERATIONS.map((o) => o.command.split(' ')[0]!), 'mcp', 'serve', 'inbox'])];
const CLI_TALK = [
  { what: 'a --flag', re: /(?<![\w-])--[a-z][a-z0-9-]*/ },
  { what: 'a `vaultgate VERB` command', re: new RegExp(`\\bvaultgate (${VERBS.join('|')})\\b`) },
  { what: 'stdin', re: /\bstdin\b/ },
  { what: 'an exit code', re: /\bexits? (with )?\d/ },
];

/** Each place in `value` (a JSON value) whose text speaks CLI, as `where: text`. */
function cliTalk(where: string, value: unknown): string[] {
  const out: string[] = [];
  const visit = (v: unknown, at: string) => {
    if (typeof v === 'string') {
      for (const t of CLI_TALK) {
        const m = t.re.exec(v);
        if (m) out.push(`${at}: ${t.what} ("${m[0]}") in ${JSON.stringify(v.slice(Math.max(0, m.index - 60), m.index + 60))}`);
      }
    } else if (Array.isArray(v)) v.forEach((x, i) => visit(x, `${at}[${i}]`));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) visit(x, `${at}.${k}`);
  };
  visit(value, where);
  return out;
}

async function connect(root: string, home: string, extra: string[] = []) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI_BIN, 'mcp', '--vault', root, ...extra],
    env: { ...(process.env as Record<string, string>), VAULTGATE_HOME: home },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'vaultgate-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

test('mcp speaks tools and arguments: tools/list, instructions, prompts, resources and error results name no CLI flag or command', async () => {
  const { root, home } = tempVault(NOTES);
  const sha = (await runCliProcess(['note', 'Games/Rules.md', '--json'], { vault: root, home })).json.sha256 as string;
  const found: string[] = [];
  for (const extra of [[], ['--allow-apply']]) {
    const client = await connect(root, home, extra);
    try {
      const { tools } = await client.listTools();
      found.push(...cliTalk(`tools/list ${extra.join(' ')}`, tools));
      found.push(...cliTalk('instructions', client.getInstructions()));
      found.push(...cliTalk('prompts/list', (await client.listPrompts()).prompts));
      const prompt = await client.getPrompt({ name: 'answer_from_vault', arguments: { question: 'How many cards do I discard?' } });
      found.push(...cliTalk('prompts/get answer_from_vault', prompt.messages));
      found.push(...cliTalk('resources/templates/list', (await client.listResourceTemplates()).resourceTemplates));
      await client.readResource({ uri: 'vaultgate://note/Nope.md' }).then(
        () => found.push('resources/read of a missing note did not fail'),
        (e: { data?: unknown; message: string }) => found.push(...cliTalk('resources/read error', { message: e.message, data: e.data })),
      );
      // A sample of failures: bad arguments, missing things, stale bases, refused shapes, from every kind of tool.
      const calls: [string, Record<string, unknown>][] = [
        ['search', { query: 'x', sneaky: 1 }],
        ['search', {}],
        ['search', { query: 'x', where: ['nokeyvalue'] }],
        ['context', { question: '   ' }],
        ['note', { path: 'Nope.md' }],
        ['note', { path: 'Games/Rules.md', heading: 'Nowhere' }],
        ['note', { path: 'Long.md', cursor: '10-000000000000-e3b0c4' }],
        ['links', {}],
        ['backlinks', { note: 'Nope.md' }],
        ['resolve_link', { link: '' }],
        ['similar', { duplicates: true, note: 'Home.md' }],
        ['similar', {}],
        ['state_patch', { session: 's1', revision: 5, patch: { a: 1 } }],
        ['state_get', { session: 'bad session id!' }],
        ['propose', { path: 'Games/Rules.md', replace: 'no such text', with: 'x', base: sha, title: 't' }],
        ['propose', { path: 'Games/Rules.md', replace: 'robber', with: 'x', base: 'f'.repeat(64), title: 't' }],
        ['propose', { path: 'Games/Rules.md', content: 'x' }],
        ['propose', { path: 'Games/Rules.md', delete: true, move: true, base: sha }],
        ['review', { id: 'p-999' }],
        ['review', { id: 'seven' }],
        ['list_proposals', { state: 'maybe' }],
        ['no_such_tool', {}],
        ...(extra.length ? ([['apply', { id: 'p-999', review_hash: 'a'.repeat(64) }]] as [string, Record<string, unknown>][]) : []),
      ];
      for (const [name, args] of calls) {
        const r: any = await client.callTool({ name, arguments: args });
        assert.equal(r.isError, true, `${name} ${JSON.stringify(args)} should fail: ${JSON.stringify(r.content).slice(0, 200)}`);
        found.push(...cliTalk(`${name} ${JSON.stringify(args)}`, JSON.parse(r.content[0].text)));
      }
    } finally {
      await client.close();
    }
  }
  assert.deepEqual(found, [], `the MCP face speaks CLI:\n${found.join('\n')}`);
});

test('mcp tools/list: the default tool set is at most 12,000 characters of compact JSON, every tool kept; apply warns of the missing person', async () => {
  const { root, home } = tempVault(NOTES);
  const client = await connect(root, home);
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), OPERATIONS.filter((o) => o.tool).map((o) => o.tool), 'every tool of the table is kept');
    const size = JSON.stringify({ tools }).length;
    assert.ok(size <= 12_000, `tools/list is ${size} characters`);
    for (const t of tools) {
      assert.equal((t.inputSchema as { additionalProperties?: boolean }).additionalProperties, false, `${t.name}: unknown arguments refused`);
      assert.ok(t.description && t.description.length > 20, t.name);
    }
  } finally {
    await client.close();
  }
  const withApply = await connect(root, home, ['--allow-apply']);
  try {
    const apply = (await withApply.listTools()).tools.find((t) => t.name === 'apply');
    assert.ok(apply, 'apply is offered with --allow-apply');
    assert.match(apply.description!, /the MCP client's approval prompt for this call is the only person in the loop/);
  } finally {
    await withApply.close();
  }
});

test('mcp results: the text block is the JSON of the structured result, bounded like it; a cut is marked in the data, never mid-word', async () => {
  const { root, home } = tempVault(NOTES);
  const max = 3000;
  const client = await connect(root, home, ['--max-output-chars', String(max)]);
  try {
    for (const [name, args] of [
      ['note', { path: 'Games/Rules.md' }],
      ['search', { query: 'robber', limit: 3 }],
      ['context', { question: 'How many cards do I discard on a 7?' }],
      ['note', { path: 'Long.md' }],
      ['search', { query: 'robber harbour', limit: 100, all_sections: true }],
    ] as const) {
      const r: any = await client.callTool({ name, arguments: args });
      assert.ok(!r.isError, JSON.stringify(r.content).slice(0, 300));
      assert.equal(r.content.length, 1);
      assert.deepEqual(JSON.parse(r.content[0].text), r.structuredContent, `${name}: the text block is the structured result's JSON`);
      assert.ok(r.content[0].text.length <= max, `${name}: text within --max-output-chars`);
    }
    const note: any = await client.callTool({ name: 'note', arguments: { path: 'Games/Rules.md' } });
    assert.match(JSON.parse(note.content[0].text).sha256, /^[0-9a-f]{64}$/, 'a text-only host gets the base to propose against');

    // Evidence comes whole (the 160-character terminal preview is the CLI's, not MCP's).
    const ctx: any = await client.callTool({ name: 'context', arguments: { question: 'How many cards do I discard on a 7?' } });
    const evidence = JSON.parse(ctx.content[0].text).evidence as { path: string; heading_path: string[]; text: string }[];
    const robber = evidence.find((e) => e.heading_path.at(-1) === 'Robber');
    assert.ok(robber, JSON.stringify(evidence.map((e) => e.heading_path)));
    assert.ok(robber.text.includes('rounded down, when you hold more than seven.'), 'whole section text');

    // A packet larger than the limit: whole sections left out by the budget, listed in `truncated`.
    const big: any = await client.callTool({ name: 'context', arguments: { question: 'robber harbour paragraph', limit: 50 } });
    const packet = JSON.parse(big.content[0].text);
    assert.ok(packet.truncated.length > 0, 'sections that did not fit are listed');
    for (const t of packet.truncated) assert.equal(t.truncated, true);
    assert.ok(big.content[0].text.length <= max);

    // A list cut by the server says so in the data.
    const many: any = await client.callTool({ name: 'search', arguments: { query: 'robber harbour', limit: 100, all_sections: true } });
    const cut = JSON.parse(many.content[0].text);
    assert.equal(cut.output_limit?.truncated, true);
    assert.ok(cut.output_limit.omitted.hits.items > 0);
    // … with where to continue: the next page starts right after the last hit kept.
    assert.equal(cut.output_limit.next_offset, cut.hits.length);
    const next: any = await client.callTool({ name: 'search', arguments: { query: 'robber harbour', limit: 100, all_sections: true, offset: cut.output_limit.next_offset } });
    const whole = (await runCliProcess(['search', 'robber harbour', '--limit', '100', '--all-sections', '--json'], { vault: root, home })).json.hits;
    assert.deepEqual([...cut.hits, ...next.structuredContent.hits], whole.slice(0, cut.hits.length + next.structuredContent.hits.length));

    // A long note: windows with a cursor, never a cut.
    const long: any = await client.callTool({ name: 'note', arguments: { path: 'Long.md' } });
    const win = JSON.parse(long.content[0].text);
    assert.ok(win.window.next_cursor, 'a cursor to continue');
    assert.equal(win.output_limit?.omitted.text, undefined, 'the text is windowed, not cut');
  } finally {
    await client.close();
  }
});
