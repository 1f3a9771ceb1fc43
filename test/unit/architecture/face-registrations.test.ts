/**
 * Every face registers from the operation table, and every name a face uses
 * names an operation that exists. The table is the waist (src/ops/table.ts):
 * a face that names an operation by a string (the web API's routes, the
 * terminal inbox's actions, the MCP server's resources) breaks silently when
 * the operation is renamed, so this test reads each face's list against it.
 * The daemon's forwarded verbs are checked in test/unit/cli/forwarded-verbs.test.ts.
 *
 * Which faces leave which operations out, on purpose, is pinned below: a new
 * operation without an MCP tool is a decision to write down here.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { Command } from 'commander';
import { OPERATIONS, findOperation } from '../../../src/ops/index.js';
import { mcpTools } from '../../../src/mcp/index.js';
import { registerOperations } from '../../../src/cli/register-ops.js';
import type { Reporter } from '../../../src/cli/command-kit.js';
import { CONSENT_ACTIONS, PROPOSAL_ACTIONS, ROUTES } from '../../../src/inbox/web/api.js';
import { TERMINAL_INBOX_OPERATIONS } from '../../../src/inbox/terminal/backend.js';
import { FORWARDED_VERBS } from '../../../src/cli/daemon/client.js';

const SRC = path.resolve(import.meta.dirname, '../../../src');
const names = new Set(OPERATIONS.map((op) => op.name));

test("every operation's run is a named function (runSearch, runTxInspect): stack traces and profiles name it", () => {
  const runNames = OPERATIONS.map((op) => op.run.name);
  for (const [i, op] of OPERATIONS.entries()) {
    const expected = 'run' + op.name.split('_').map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
    assert.equal(runNames[i], expected, `${op.name}: run is ${JSON.stringify(runNames[i])}`);
  }
  assert.equal(new Set(runNames).size, runNames.length);
});

test('the CLI registers every operation of the table, under its command, and nothing else', () => {
  const program = new Command();
  registerOperations(program, {} as Reporter, OPERATIONS);
  const leaves: string[] = [];
  const walk = (cmd: Command, prefix: string[]) => {
    for (const sub of cmd.commands) {
      const words = [...prefix, sub.name()];
      if (sub.commands.length > 0) walk(sub, words);
      else leaves.push(words.join(' '));
    }
  };
  walk(program, []);
  assert.deepEqual(leaves.sort(), OPERATIONS.map((op) => op.command).sort());
});

/**
 * The operations MCP clients get no tool for: writes a person decides (apply is
 * offered only with --allow-apply), maintenance, the atomize and relate
 * pipelines (run from a terminal, with their own consent), and the reads the
 * resources or other tools already cover (show, log, files, scenarios, state).
 */
const NOT_MCP_TOOLS = [
  'apply', 'atomize_chunk', 'atomize_extract', 'atomize_init', 'atomize_promote', 'atomize_strip', 'atomize_tidy', 'atomize_write',
  'checkpoint', 'consent_approve', 'consent_deny', 'consent_list', 'consent_pending', 'decline', 'files', 'index', 'init', 'log', 'plan',
  'relate_prepare', 'relate_send', 'relate_validate', 'reopen', 'rollback', 'scenario_check', 'scenario_list', 'scenario_show', 'show',
  'skill_install', 'skill_uninstall', 'state_delete', 'state_list', 'tx_apply', 'tx_inspect', 'tx_recover', 'tx_resolve', 'tx_status',
  'undo', 'verify',
];

test('MCP tools: each is an operation of the table, names unique; the operations left out are the deliberate ones', () => {
  const tools = mcpTools({ allowApply: true });
  for (const t of tools) assert.ok(OPERATIONS.includes(t.op), `tool ${t.name} runs an operation outside the table`);
  assert.equal(new Set(tools.map((t) => t.name)).size, tools.length);
  const offered = new Set(mcpTools({ allowApply: false }).map((t) => t.op.name));
  const omitted = OPERATIONS.map((op) => op.name).filter((n) => !offered.has(n));
  assert.deepEqual(omitted.sort(), NOT_MCP_TOOLS.slice().sort(), 'an operation gained or lost its MCP tool: update NOT_MCP_TOOLS if on purpose');
  assert.ok(tools.some((t) => t.op.name === 'apply'), '--allow-apply offers apply');
});

test("the daemon forwards only operations' commands (reads; see forwarded-verbs.test.ts)", () => {
  for (const verb of FORWARDED_VERBS) assert.ok(findOperation({ command: verb }), verb);
});

test("the web API's routes and the terminal inbox's actions name operations of the table", () => {
  const webOps = new Set<string>();
  for (const r of ROUTES) if (typeof r.op === 'string') webOps.add(r.op);
  for (const a of PROPOSAL_ACTIONS) webOps.add(a);
  for (const a of CONSENT_ACTIONS) webOps.add(`consent_${a}`);
  for (const n of [...webOps, ...TERMINAL_INBOX_OPERATIONS]) assert.ok(names.has(n), `${n} is not an operation`);
});

test('every findOperation({ name }) literal in src/ names an operation of the table', () => {
  const files = (dir: string): string[] =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [path.join(dir, e.name)] : []));
  let seen = 0;
  for (const f of files(SRC)) {
    for (const m of fs.readFileSync(f, 'utf8').matchAll(/findOperation\(\{ name: '([a-z_]+)' \}\)/g)) {
      seen++;
      assert.ok(names.has(m[1]!), `${path.relative(SRC, f)} names ${m[1]}, not an operation`);
    }
  }
  assert.ok(seen > 0);
});
