import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT } from './run-cli.js';

/**
 * The shared real-vault corpora, read in place (never copied into the repo).
 * Looked up beside the repository (`../shared/corpora`) or at VAULTGATE_CORPORA.
 */
export function corporaRoot(): string | null {
  const candidates = [process.env.VAULTGATE_CORPORA, path.resolve(REPO_ROOT, '../shared/corpora')].filter(Boolean) as string[];
  return candidates.find((c) => fs.existsSync(c)) ?? null;
}

export interface Corpus {
  name: string;
  vault: string;
}

export function corpora(): Corpus[] {
  const root = corporaRoot();
  if (!root) return [];
  return fs
    .readdirSync(root, { withFileTypes: true })
    .filter((e) => e.isDirectory() && fs.existsSync(path.join(root, e.name, 'vault')))
    .map((e) => ({ name: e.name, vault: path.join(root, e.name, 'vault') }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * Register a corpus suite's tests once per corpus; when the corpora are absent,
 * register one skipped test that says so, so a run never silently drops a suite.
 */
export function eachCorpus(suite: string, register: (corpus: Corpus) => void): void {
  const found = corpora();
  if (found.length === 0) {
    test(`${suite}: corpora`, { skip: `corpora absent (looked in VAULTGATE_CORPORA and ${path.resolve(REPO_ROOT, '../shared/corpora')})` }, () => {});
    return;
  }
  for (const corpus of found) register(corpus);
}
