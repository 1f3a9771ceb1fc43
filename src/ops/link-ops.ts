import fs from 'node:fs';
import path from 'node:path';
import { VaultgateError } from '../errors.js';
import { defineOperation, READ_ONLY, type OpContext } from './operation.js';
import { readNoteByArg } from './note-arg.js';
import { vaultPath } from './params.js';

/**
 * The link reads: `links` (a note's outgoing links, or a snapshot of every
 * link), `backlinks` and `check` (broken links and other problems). Each
 * refreshes the index first and never writes inside the vault.
 */

export const linksOp = defineOperation({
  name: 'links',
  command: 'links',
  tool: 'links',
  group: 'read',
  summary: 'List every link in a note with its resolution; or save the whole vault’s link resolution (--snapshot) to compare later',
  description:
    '`--snapshot FILE` writes every link of every note with what it resolves to now; `vaultgate check --links-baseline FILE` later lists every link whose target changed ' +
    '(after a sync or a bulk edit made outside vaultgate). `--snapshot` alone prints the snapshot. The file must be outside the vault.',
  toolDescription: 'Every link in a note, with its status and target.',
  examples: ['vaultgate links Journal/2026-11-28.md', 'vaultgate links Home.md --json', 'vaultgate links --snapshot ~/links-before-sync.json'],
  params: [
    { ...vaultPath('note', 'vault-relative path of the note'), required: false },
    { name: 'snapshot', type: 'string', cliOnly: true, placeholder: 'file', bareValue: '-', description: 'save every link of the vault with its resolution to FILE (alone: print it)' },
  ] as const,
  output: {
    note: 'string',
    total: 'integer',
    links: { array: { line: 'integer', kind: 'string', raw: 'string', status: 'string', target: 'string|null' } },
    warnings: 'array',
  },
  annotations: READ_ONLY,
  run: async function runLinks(input, ctx) {
    const session = ctx.session();
    if (input.snapshot !== undefined) {
      if (input.note !== undefined) throw new VaultgateError('USAGE', 'give a NOTE or --snapshot, not both', { hint: '`vaultgate links NOTE` lists one note’s links; `vaultgate links --snapshot FILE` saves the whole vault’s.' });
      const { linkSnapshot } = await import('../index/index.js');
      const snap = session.read((h) => linkSnapshot(h.db)).result;
      if (input.snapshot === '-') return { ...snap } as Record<string, unknown>;
      const file = writeOutsideVault(JSON.stringify(snap) + '\n', { root: session.root, cwd: ctx.cwd, file: input.snapshot });
      return { snapshot: { file, taken_at: snap.taken_at, notes: snap.notes, links: snap.links } } as Record<string, unknown>;
    }
    if (input.note === undefined) throw new VaultgateError('USAGE', 'missing NOTE: vault-relative path of the note', { hint: 'Give NOTE, or --snapshot FILE for the whole vault; see `vaultgate links --help`.', details: { param: 'note' } });
    const { noteLinksFromIndex } = await import('../index/index.js');
    const { value: r } = await readNoteByArg(session, input.note, (note) => session.read((h, fresh) => noteLinksFromIndex(h.db, session.root, note, fresh.warnings)).result);
    return { note: r.note, total: r.links.length, links: r.links, warnings: r.warnings } as Record<string, unknown>;
  },
  text: (r) => {
    if ('schema' in r) return JSON.stringify(r);
    if ('snapshot' in r) {
      const s = r.snapshot as { file: string; notes: number; links: number };
      return `saved ${s.links} links of ${s.notes} notes to ${s.file}`;
    }
    return (r.links as Array<{ line: number; status: string; raw: string; target: string | null }>).map((l) => `${l.line}\t${l.status}\t${l.raw}${l.target ? `\t→ ${l.target}` : ''}`).join('\n');
  },
  // `--snapshot` alone prints the snapshot itself, even when piped: it is the file
  document: (r) => ('schema' in r ? JSON.stringify(r) : undefined),
});

/** Most bytes of a link snapshot read back: 100k notes with ~4 links each take ~40 MB. */
const MAX_SNAPSHOT_BYTES = 512 * 1024 * 1024;

/**
 * Write a file a read command was asked for (a snapshot), atomically (a temporary
 * file renamed into place). Reads never write inside the vault: a path inside
 * it is refused.
 */
function writeOutsideVault(text: string, { root, cwd, file }: { root: string; cwd: string; file: string }): string {
  const abs = path.resolve(cwd, file);
  const real = (p: string) => {
    try {
      return fs.realpathSync(p);
    } catch {
      return path.resolve(p);
    }
  };
  const dir = real(path.dirname(abs));
  const vault = real(root);
  if (dir === vault || dir.startsWith(vault + path.sep)) {
    throw new VaultgateError('INVALID_INPUT', `${file} is inside the vault; a read command never writes there`, {
      details: { file: abs },
      hint: 'Save the snapshot outside the vault (e.g. ~/links-before-sync.json).',
    });
  }
  const tmp = path.join(path.dirname(abs), `.${path.basename(abs)}.${process.pid}.tmp`);
  try {
    fs.writeFileSync(tmp, text, { flag: 'wx' });
    fs.renameSync(tmp, abs);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw new VaultgateError('INVALID_INPUT', `cannot write ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, { details: { file: abs }, hint: 'Give a path in a folder you can write.' });
  }
  return abs;
}

/** A snapshot file, read and checked. */
async function readSnapshotFile(ctx: OpContext, file: string) {
  const { readLinkSnapshot } = await import('../index/index.js');
  const { readFileArg } = await import('./read-bounded.js');
  const abs = path.resolve(ctx.cwd, file);
  // a regular file only, bounded (a FIFO is refused, never waited on: issue 20)
  const bytes = readFileArg(ctx, file, {
    limit: MAX_SNAPSHOT_BYTES,
    what: 'links baseline',
    tooLarge: (limit) => new VaultgateError('INVALID_INPUT', `${file} is over ${limit} bytes`, { details: { file: abs }, hint: 'Give the file `vaultgate links --snapshot FILE` wrote.' }),
  });
  const text = bytes.toString('utf8');
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new VaultgateError('INVALID_INPUT', `${file} is not JSON: ${(e as Error).message}`, { details: { file: abs }, hint: 'Give the file `vaultgate links --snapshot FILE` wrote.' });
  }
  return readLinkSnapshot(doc, file);
}

export const backlinksOp = defineOperation({
  name: 'backlinks',
  command: 'backlinks',
  tool: 'backlinks',
  group: 'read',
  summary: 'List every link in the vault that resolves to a note (or any vault file)',
  toolDescription: 'Every link in the vault to this note or file.',
  examples: ['vaultgate backlinks Wiki/Cooking/Sourdough.md', 'vaultgate backlinks Attachments/board.png --json'],
  params: [vaultPath('note', 'vault-relative path of the note or file')] as const,
  output: {
    note: 'string',
    total: 'integer',
    backlinks: { array: { source: 'string', line: 'integer', kind: 'string', raw: 'string', status: 'string' } },
    ambiguous: 'array',
    warnings: 'array',
  },
  annotations: READ_ONLY,
  run: async function runBacklinks(input, ctx) {
    const { backlinksFromIndex } = await import('../index/index.js');
    const session = ctx.session();
    const { value: r } = await readNoteByArg(session, input.note, (note) => session.read((h, fresh) => backlinksFromIndex(h.db, session.root, note, fresh.warnings)).result, { anyFile: true });
    return { note: r.note, total: r.backlinks.length, backlinks: r.backlinks, ambiguous: r.ambiguous, warnings: r.warnings };
  },
  text: (r) =>
    [
      `${r.total} link${r.total === 1 ? '' : 's'} into ${r.note}` + (r.ambiguous.length ? `, ${r.ambiguous.length} ambiguous` : ''),
      ...r.backlinks.map((b) => `  ${b.source}:${b.line}\t${b.raw}${b.subpath?.exists === false ? `\t(broken anchor: no ${b.subpath.kind} ${JSON.stringify(b.subpath.value)})` : ''}`),
      ...r.ambiguous.map((b) => `  ${b.source}:${b.line}\t${b.raw}\t(ambiguous)`),
    ].join('\n'),
});

const CHECK_ITEMS_SHOWN = 10;

export const checkOp = defineOperation({
  name: 'check',
  command: 'check',
  tool: 'check_vault',
  group: 'read',
  summary: 'Vault health: unresolved and ambiguous links, broken anchors, orphans, invalid frontmatter, path collisions',
  toolDescription: 'Vault health: broken or ambiguous links and anchors, orphans, bad frontmatter, path collisions.',
  examples: ['vaultgate check', 'vaultgate check --all', 'vaultgate check --json'],
  params: [
    { name: 'all', type: 'boolean', cliOnly: true, description: `on a terminal, list every problem (default: the first ${CHECK_ITEMS_SHOWN} of each kind)` },
    { name: 'links_baseline', type: 'string', cliOnly: true, placeholder: 'file', description: 'also compare every link with a snapshot saved by `links --snapshot FILE`: each link whose target changed' },
  ] as const,
  output: { counts: 'object', items: 'object', warnings: 'array' },
  annotations: READ_ONLY,
  run: async function runCheck(input, ctx) {
    const { checkFromIndex, compareLinkSnapshot } = await import('../index/index.js');
    const baseline = input.links_baseline === undefined ? null : await readSnapshotFile(ctx, input.links_baseline);
    const { health, compared } = ctx.session().read((h, fresh) => ({ health: checkFromIndex(h.db, fresh.warnings), compared: baseline === null ? null : compareLinkSnapshot(h.db, baseline) })).result;
    return { ...health, ...(compared === null ? {} : { links_baseline: compared }) };
  },
  text: (r, input) => {
    const lines = [Object.entries(r.counts).map(([k, v]) => `${k}: ${v}`).join(', ')];
    if (r.links_baseline) {
      const b = r.links_baseline;
      lines.push(
        '',
        `since the links baseline of ${b.taken_at}: ${b.changed.length} of ${b.compared} links changed target; ${b.notes_gone.length} notes gone, ${b.notes_new} new; ${b.links_gone} links removed, ${b.links_new} added`,
      );
      const shown = input.all ? b.changed : b.changed.slice(0, CHECK_ITEMS_SHOWN);
      for (const c of shown) lines.push(`  ${c.source}:${c.line}  ${c.raw}  ${c.before.target ?? c.before.status} → ${c.after.target ?? c.after.status}`);
      if (shown.length < b.changed.length) lines.push(`  … ${b.changed.length - shown.length} more (--all lists them, --json gives every field)`);
      for (const g of b.notes_gone.slice(0, input.all ? undefined : CHECK_ITEMS_SHOWN)) lines.push(`  gone: ${g.path} (${g.links} links)`);
    }
    for (const [kind, items] of Object.entries(r.items as Record<string, unknown[]>)) {
      if (!Array.isArray(items) || items.length === 0) continue;
      lines.push('', `${kind.replace(/_/g, ' ')} (${items.length}):`);
      const shown = input.all ? items : items.slice(0, CHECK_ITEMS_SHOWN);
      for (const item of shown) lines.push(`  ${describeCheckItem(item)}`);
      if (shown.length < items.length) lines.push(`  … ${items.length - shown.length} more (--all lists them, --json gives every field)`);
    }
    // the last count is `warnings`: listed like the rest (a count that lists nothing leaves the person to guess)
    const warnings = (r.warnings ?? []) as Array<{ code?: string; message?: string; path?: string; paths?: string[] }>;
    if (warnings.length > 0) {
      lines.push('', `warnings (${warnings.length}):`);
      const shown = input.all ? warnings : warnings.slice(0, CHECK_ITEMS_SHOWN);
      for (const w of shown) lines.push(`  ${[w.code, w.path ?? w.paths?.join(' ~ '), w.message].filter(Boolean).join('  ')}`);
      if (shown.length < warnings.length) lines.push(`  … ${warnings.length - shown.length} more (--all lists them, --json gives every field)`);
    }
    return lines.join('\n');
  },
});

/** One line for an item of `check`: where it is and what it says. */
function describeCheckItem(item: unknown): string {
  if (typeof item === 'string') return item;
  const i = item as Record<string, unknown>;
  const file = typeof i.source === 'string' ? i.source : typeof i.path === 'string' ? i.path : '';
  const where = file && typeof i.line === 'number' ? `${file}:${i.line}` : file;
  const what = typeof i.raw === 'string' ? i.raw : typeof i.message === 'string' ? i.message : Array.isArray(i.paths) ? (i.paths as string[]).join(' ~ ') : '';
  const extra = Array.isArray(i.candidates) ? ` → one of ${(i.candidates as string[]).join(', ')}` : typeof i.target === 'string' && i.subpath === undefined ? ` → ${i.target} (not indexed)` : '';
  return [where, what].filter(Boolean).join('  ') + extra || JSON.stringify(item);
}
