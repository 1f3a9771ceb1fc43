import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OPERATIONS, flagName, inputZodShape, parseInput, type Param } from '../../../src/ops/index.js';
import { textArgsLast as textArgsLastOf } from '../../../src/cli/cli-program.js';
import { operationVerb } from '../../../src/cli/register-ops.js';
import { READ_OPERATIONS } from '../../../src/cli/run-read-cli.js';
import { FORWARDED_VERBS } from '../../../src/cli/daemon/client.js';
import { createRequire } from 'node:module';
import { isVaultgateError } from '../../../src/errors.js';

const require = createRequire(import.meta.url);
/** The CLI's free-text argument handling over the whole table. */
const textArgsLast = (argv: string[]) => textArgsLastOf(argv, OPERATIONS);

test('ops table: names, commands and tools are unique; params are snake_case; examples are command lines', () => {
  const unique = (xs: string[]) => assert.equal(new Set(xs).size, xs.length, xs.join(', '));
  unique(OPERATIONS.map((o) => o.name));
  unique(OPERATIONS.map((o) => o.command));
  unique(OPERATIONS.flatMap((o) => (o.tool ? [o.tool] : [])));
  for (const op of OPERATIONS) {
    assert.match(op.name, /^[a-z][a-z0-9_]*$/, op.name);
    assert.ok(op.examples.length >= 2, `${op.name} has 2–3 examples (issue 13), not ${op.examples.length}`);
    for (const e of op.examples) assert.match(e, /(^|\| )vaultgate /, `${op.name}: ${e}`);
    const params = op.params as readonly Param[];
    // unique per face: a CLI-only and an MCP-only param may share a name (propose's `changes`: a file on the CLI, the list over MCP)
    unique(params.filter((p) => !p.mcpOnly).map((p) => p.name));
    unique(params.filter((p) => !p.cliOnly).map((p) => p.name));
    for (const p of params) assert.match(p.name, /^[a-z][a-z0-9_]*$/, `${op.name}.${p.name}`);
    assert.ok(params.filter((p) => p.positional === 'variadic').length <= 1, `${op.name}: at most one variadic`);
  }
  // Reads are listed before writes, writes before maintenance.
  const order = OPERATIONS.map((o) => ['read', 'write', 'admin'].indexOf(o.group));
  assert.deepEqual(order, [...order].sort((a, b) => a - b));
});

const params = [
  { name: 'query', type: 'string', positional: 'variadic', description: 'q', nonEmpty: true },
  { name: 'limit', type: 'int', min: 1, max: 50, default: 10, description: 'n' },
  { name: 'score', type: 'number', min: 0, max: 1, description: 's' },
  { name: 'all_sections', type: 'boolean', description: 'b' },
  { name: 'format', type: 'enum', values: ['json', 'markdown'], default: 'json', description: 'f' },
  { name: 'where', type: 'strings', description: 'w' },
  { name: 'file', type: 'string', cliOnly: true, description: 'f' },
] as const;

function usageParam(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    assert.ok(isVaultgateError(e) && e.code === 'USAGE', String(e));
    return String(e.details?.param);
  }
  assert.fail('expected a USAGE error');
}

test('parseInput: defaults, coercion of command-line strings, and typed refusals naming the param', () => {
  const cli = parseInput(params, { query: ['how', 'does', 'it'], limit: '5', score: '0.5' }, 'cli');
  assert.deepEqual({ ...cli }, { query: 'how does it', limit: 5, score: 0.5, all_sections: false, format: 'json', where: [], file: undefined });
  const api = parseInput(params, { query: 'x', where: ['a=b'], all_sections: true }, 'api');
  assert.equal(api.limit, 10);
  assert.deepEqual(api.where, ['a=b']);
  assert.equal(usageParam(() => parseInput(params, { query: '  ' }, 'api')), 'query');
  assert.equal(usageParam(() => parseInput(params, {}, 'api')), 'query');
  assert.equal(usageParam(() => parseInput(params, { query: 'x', limit: '5' }, 'api')), 'limit');
  assert.equal(usageParam(() => parseInput(params, { query: 'x', limit: '2.5' }, 'cli')), 'limit');
  assert.equal(usageParam(() => parseInput(params, { query: 'x', limit: 51 }, 'api')), 'limit');
  assert.equal(usageParam(() => parseInput(params, { query: 'x', score: 'NaN' }, 'cli')), 'score');
  assert.equal(usageParam(() => parseInput(params, { query: 'x', format: 'yaml' }, 'api')), 'format');
  assert.equal(usageParam(() => parseInput(params, { query: 'x', sneaky: 1 }, 'api')), 'sneaky');
  assert.equal(usageParam(() => parseInput(params, { query: 'x', file: 'a' }, 'api')), 'file'); // CLI-only
  assert.equal(usageParam(() => parseInput(params, JSON.parse('{"query":"x","__proto__":1}'), 'api')), '__proto__');
});

test('parseInput: the zod shape built from the same params accepts and refuses the same inputs', () => {
  const { z } = require('zod') as typeof import('zod');
  const schema = z.strictObject(inputZodShape(params));
  assert.ok(schema.safeParse({ query: 'x', limit: 3, where: ['a=b'] }).success);
  assert.equal(schema.safeParse({ query: 'x', limit: 0 }).success, false);
  assert.equal(schema.safeParse({ query: 'x', sneaky: 1 }).success, false);
  assert.equal(schema.safeParse({ query: 'x', file: 'a' }).success, false, 'CLI-only params are not offered');
  assert.equal(schema.safeParse({ limit: 3 }).success, false, 'required params are required');
});

test('flagName: snake_case params become kebab-case flags', () => {
  assert.equal(flagName(params[3]), 'all-sections');
});

test('textArgsLast: a leading -word is query text; flags after -- still count (issue #13)', () => {
  assert.deepEqual(textArgsLast(['search', '-draft', 'robber']), ['search', '--', '-draft', 'robber']);
  assert.deepEqual(textArgsLast(['search', '--', '-word', '--vault', 'V']), ['search', '--vault', 'V', '--', '-word']);
  assert.deepEqual(textArgsLast(['--vault', 'V', 'search', 'x', '--limit', '3', '--json']), ['--vault', 'V', 'search', '--limit', '3', '--json', '--']
    .concat(['x']));
  assert.deepEqual(textArgsLast(['note', '-x']), ['note', '-x'], 'other verbs are untouched');
  // `--vault=V` is one word: the verb is the next one (it was skipped as if V followed, and -draft met commander as an option)
  assert.deepEqual(textArgsLast(['--vault=V', 'search', 'rules', '-draft']), ['--vault=V', 'search', '--', 'rules', '-draft']);
});

test('operationVerb: only a known operation verb, after global flags and with no help asked, narrows what the CLI registers', () => {
  assert.equal(operationVerb(['--vault', 'V', 'search', '--', 'x'], OPERATIONS), 'search');
  assert.equal(operationVerb(['--vault=V', '--json', 'index'], OPERATIONS), 'index');
  assert.equal(operationVerb(['tx', 'apply', 'b.json'], OPERATIONS), 'tx', 'a group: all of its subcommands');
  for (const argv of [[], ['--json'], ['index', '--help'], ['-h'], ['--version'], ['mcp'], ['daemon', 'status'], ['nosuch'], ['--bogus', 'index'], ['--vault']]) {
    assert.equal(operationVerb(argv, OPERATIONS), null, argv.join(' '));
  }
});

test('READ_OPERATIONS: the read bundle knows exactly the verbs a daemon answers, as the table defines them', () => {
  const forwarded = OPERATIONS.filter((op) => FORWARDED_VERBS.has(op.command.split(' ')[0]!));
  assert.deepEqual(READ_OPERATIONS, forwarded, 'same operation objects, in the table order');
  assert.deepEqual(new Set(READ_OPERATIONS.map((op) => op.command)), FORWARDED_VERBS);
});
