/**
 * Conformance of link resolution with Obsidian (../shared/obsidian-links.md).
 * Each row builds a real temporary vault, resolves one link as written in a note
 * (parsed by parseLinkSyntax) and compares status, target, candidates and subpath.
 * Rows marked `cli` are also run through `vaultgate resolve` in-process.
 *
 * Every row names its rule and the source of that rule:
 * - documented: Obsidian help pages or API typings;
 * - observed: seen in the running app (markdown-vault-mcp #1350/#1358/#1383);
 * - reverse-engineered: third-party reading of the app code (Corbomite audit);
 * - corpus: a fact of a real vault in ../shared/corpora;
 * - decided: not settled by any source; our choice, documented in src/links.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resolveInVault } from '../../src/links/index.js';
import { runCli } from '../helpers/run-cli.js';
import { tempVault } from '../helpers/temp-vault.js';
import { CASES_PATH } from './links-cases-path.js';
import { CASES_SUBPATH } from './links-cases-subpath.js';

export interface Expect {
  status: 'resolved' | 'ambiguous' | 'unresolved' | 'unindexed';
  target?: string | null;
  candidates?: string[] | null;
  /** `null`: no subpath. Omitted: not checked. */
  subpath?: { kind: 'heading' | 'block'; value: string; exists: boolean | null; lines?: [number, number] } | null;
}

export interface Case {
  /** A sentence: what Obsidian does. */
  name: string;
  /** The rule (obsidian-links.md section/number) and its source. */
  rule: string;
  files: Record<string, string>;
  /** Folders excluded from indexing in .vaultgate/config.yaml. */
  exclude?: string[];
  from: string;
  link: string;
  expect: Expect;
  /** Also run through the CLI. */
  cli?: boolean;
}

const ALL: Case[] = [...CASES_PATH, ...CASES_SUBPATH];

function vaultFor(c: Case) {
  const files: Record<string, string> = { ...c.files };
  if (!(c.from in files)) files[c.from] = c.link + '\n';
  if (c.exclude) files['.vaultgate/config.yaml'] = `index:\n  exclude: [${c.exclude.map((e) => JSON.stringify(e)).join(', ')}]\n`;
  return tempVault(files);
}

function check(actual: Record<string, any>, c: Case): void {
  const e = c.expect;
  assert.equal(actual.status, e.status, `status of ${c.link}`);
  assert.equal(actual.target, e.target === undefined ? (e.status === 'resolved' ? actual.target : null) : e.target, 'target');
  assert.deepEqual(actual.candidates, e.candidates ?? null, 'candidates');
  if (e.subpath === undefined) return;
  if (e.subpath === null) return assert.equal(actual.subpath, null, 'subpath');
  const { lines, ...rest } = e.subpath;
  assert.deepEqual({ kind: actual.subpath?.kind, value: actual.subpath?.value, exists: actual.subpath?.exists }, rest, 'subpath');
  if (lines) assert.deepEqual(actual.subpath.lines, lines, 'subpath lines');
}

test('the conformance table has at least 60 cases, each naming a rule and a source', () => {
  assert.ok(ALL.length >= 60, `only ${ALL.length} cases`);
  for (const c of ALL) assert.match(c.rule, /(documented|observed|reverse-engineered|corpus|decided)/, c.name);
  assert.equal(new Set(ALL.map((c) => c.name)).size, ALL.length, 'case names are unique');
});

for (const c of ALL) {
  test(`resolve: ${c.name} (${c.rule})`, async () => {
    const { root, home } = vaultFor(c);
    check(resolveInVault(root, c.link, c.from), c);
    if (c.cli) {
      const r = await runCli(['resolve', c.link, '--from', c.from], { vault: root, home });
      assert.equal(r.exitCode, 0, r.stdout + r.stderr);
      assert.equal(r.json.ok, true);
      assert.equal(r.json.link, c.link);
      assert.equal(r.json.from, c.from);
      check(r.json, c);
    }
  });
}
