/**
 * The MCP tools come from the operation table: every operation with a tool
 * name is a tool, with a strict input schema from its params and an output
 * schema from its documented fields. The golden files (the CLI's JSON on the
 * demo vault) must satisfy those output schemas, so the schema a client sees
 * and the JSON the CLI prints cannot drift apart.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { OPERATIONS, outputZodSchema } from '../../../src/ops/index.js';
import { APPLY_OPERATION, lessHint, mcpTools, toolDefinition } from '../../../src/mcp/index.js';
import { REPO_ROOT } from '../../helpers/run-cli.js';

const GOLDEN = path.join(REPO_ROOT, 'test/golden/ops');

test('mcp tools: exactly the operations with a tool name; apply only with --allow-apply', () => {
  const names = mcpTools({ allowApply: false }).map((t) => t.name);
  assert.deepEqual(names, OPERATIONS.filter((o) => o.tool).map((o) => o.tool));
  for (const t of ['search', 'context', 'note', 'resolve_link', 'links', 'backlinks', 'check_vault']) assert.ok(names.includes(t), t);
  assert.ok(!names.includes(APPLY_OPERATION));
  const withApply = mcpTools({ allowApply: true }).map((t) => t.name);
  assert.equal(withApply.includes(APPLY_OPERATION), OPERATIONS.some((o) => o.name === APPLY_OPERATION));
  for (const t of mcpTools({ allowApply: false })) {
    assert.notEqual(t.op.group, 'admin', `${t.name}: maintenance verbs are not tools`);
    assert.ok(!/^tx_|^undo$|^checkpoint$/.test(t.op.name), `${t.name}: no transaction verb is a tool`);
  }
});

test('mcp tools: every tool documents its output (for the goldens) and its input schema is strict', () => {
  for (const tool of mcpTools({ allowApply: true })) {
    assert.ok(tool.op.output, `${tool.op.name}: give the operation an \`output\` (its documented fields) so the tool has an output schema`);
    const def = toolDefinition(tool);
    assert.equal(def.inputSchema.type, 'object');
    assert.equal(def.inputSchema.additionalProperties, false, `${tool.name}: unknown arguments must be refused`);
    // No output schema in tools/list (issue 21 §2: results are self-describing JSON, and the schemas cost 9.8 KB);
    // the documented fields still bind the JSON through the golden check below.
    assert.equal((def as { outputSchema?: unknown }).outputSchema, undefined);
    assert.ok(def.description.length > 20);
    for (const name of Object.keys(def.inputSchema.properties as object)) assert.match(name, /^[a-z][a-z0-9_]*$/);
    assert.ok(!Object.keys(def.inputSchema.properties as object).some((n) => ['content_file', 'stdin', 'all', 'append_file', 'base', 'replace'].includes(n)), `${tool.name}: CLI-only params are not offered`);
    // `changes` is a file name on the CLI, the list of change requests itself over MCP
    if (tool.name === 'propose') assert.equal((def.inputSchema.properties as Record<string, { type: string }>).changes!.type, 'array');
  }
});

test('mcp tools: annotations say reads are read-only and nothing offered by default is destructive', () => {
  for (const tool of mcpTools({ allowApply: false })) {
    const def = toolDefinition(tool);
    // MCP defaults a missing destructiveHint to true, but it means nothing for a read-only tool.
    assert.ok(def.annotations.readOnlyHint === true || def.annotations.destructiveHint === false, tool.name);
    assert.equal(def.annotations.openWorldHint, false, tool.name);
    if (tool.op.group === 'read') assert.equal(def.annotations.readOnlyHint, true, tool.name);
  }
});

test('mcp tools: every golden JSON of a tool satisfies that tool’s output schema', () => {
  let checked = 0;
  for (const file of fs.readdirSync(GOLDEN)) {
    const doc = JSON.parse(fs.readFileSync(path.join(GOLDEN, file), 'utf8'));
    if (doc.ok !== true) continue;
    const base = file.replace(/\.json$/, '');
    const op = OPERATIONS.find((o) => o.tool && (base === o.name || base.startsWith(o.name + '-') || base === o.command.replace(' ', '-')));
    if (!op?.output) continue;
    const r = outputZodSchema(op.output).safeParse(doc);
    assert.ok(r.success, `${file} against ${op.name}'s output schema: ${r.success ? '' : JSON.stringify(r.error.issues.slice(0, 3))}`);
    checked++;
  }
  assert.ok(checked >= 8, `checked ${checked} golden files`);
});

test('mcp tools: the hint of a cut result names the arguments that ask for less', () => {
  const [search] = mcpTools({ allowApply: false }).filter((t) => t.name === 'search');
  assert.match(lessHint(search!, 20000), /limit/);
  const [note] = mcpTools({ allowApply: false }).filter((t) => t.name === 'note');
  assert.match(lessHint(note!, 20000), /next_cursor/);
});

test('forTool: CLI wording becomes tools and arguments; text that names no verb is kept (issue 21 §2)', async () => {
  const { forTool } = await import('../../../src/mcp/index.js');
  assert.equal(forTool('Check the path; `vaultgate search` finds notes.'), 'Check the path; the `search` tool finds notes.');
  assert.equal(forTool('Run `vaultgate index --rebuild` first.'), "Run the person's `index` first.");
  assert.equal(forTool('see vaultgate state get'), 'see the `state_get` tool');
  assert.equal(forTool('without --from, or with --all-sections'), 'without from, or with all_sections');
  assert.equal(forTool('A stale --base exits 75 and stores nothing'), 'A stale base fails (a conflict: re-read) and stores nothing');
  assert.equal(forTool('vaultgate serves one vault'), 'vaultgate serves one vault');
  assert.equal(forTool('start `vaultgate mcp --allow-apply`'), "start the person's `mcp` command");
});

test('mcp tools: tools/list of the default set stays within 12,000 characters (issue 21 §2)', () => {
  const size = JSON.stringify({ tools: mcpTools({ allowApply: false }).map(toolDefinition) }).length;
  assert.ok(size <= 12_000, `tools/list is ${size} characters`);
});
