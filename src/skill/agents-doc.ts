import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { VaultgateError } from '../errors.js';

/**
 * docs/agents.md — the one text every agent runtime gets: the installed skill
 * (SKILL.md), the MCP server's `answer_from_vault` prompt and its instructions.
 * It ships in the package (package.json `files`), so it is read from there at
 * run time: one source, and a fix to the doc reaches every runtime on the next
 * `skill install`.
 */

/** The package root: two levels above this module both in dist/<module>/ and in the bundle's dist/cli/. */
export const PACKAGE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export function agentsDocPath(): string {
  return path.join(PACKAGE_ROOT, 'docs/agents.md');
}

/** The text of docs/agents.md (a typed error when the package lost it). */
export function readAgentsDoc(file = agentsDocPath()): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new VaultgateError('NOT_FOUND', `cannot read the agent guide ${file}: ${(e as Error).message}`, {
      hint: 'Reinstall vaultgate: docs/agents.md ships in the package.',
    });
  }
}

/** One `## ` section of a Markdown document, heading matched case-insensitively by a word in it; null when absent. */
export function docSection(doc: string, word: RegExp): { heading: string; body: string } | null {
  const lines = doc.split('\n');
  let start = -1;
  let inFence = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^(```|~~~)/.test(line)) inFence = !inFence;
    if (inFence || !/^## /.test(line)) continue;
    if (start >= 0) return { heading: lines[start]!.slice(3).trim(), body: lines.slice(start + 1, i).join('\n').trim() };
    if (word.test(line.slice(3))) start = i;
  }
  return start >= 0 ? { heading: lines[start]!.slice(3).trim(), body: lines.slice(start + 1).join('\n').trim() } : null;
}

/** The document without its `# ` title line (the skill and the prompt have their own). */
export function withoutTitle(doc: string): string {
  return doc.replace(/^\s*# [^\n]*\n+/, '');
}
