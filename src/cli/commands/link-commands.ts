import type { Command } from 'commander';
import { action, usageError, type Reporter } from '../command-kit.js';

/**
 * `resolve`, `links`, `backlinks`, `check`: link resolution as Obsidian does it.
 * Thin: parse, call the core (lazily imported), render. All four are read-only for
 * the vault. They answer from the SQLite index (refreshed first), whose stored
 * resolutions come from src/links; src/links' own vault-scanning versions
 * (resolveInVault, noteLinks, backlinks, checkVault) give the same answers and
 * are what the index is tested against.
 */
export function register(program: Command, reporter: Reporter): void {
  program
    .command('resolve')
    .description('Resolve a link exactly as Obsidian would, from a given note')
    .argument('<link>', 'the link as written: [[A#B|c]], ![[x.png|100]], [t](a%20b.md), or a bare target')
    .requiredOption('--from <note>', 'the note the link is written in (vault-relative path)')
    .action(
      action(reporter, async (ctx, args, opts) => {
        const { withFreshIndex, resolveFromIndex } = await import('../../index/index.js');
        const root = await ctx.vaultRoot();
        const r = withFreshIndex(root, ctx.io.env, (h, fresh) => resolveFromIndex(h.db, root, args[0] ?? '', String(opts.from), fresh.warnings)).result;
        const sub = r.subpath ? ` #${r.subpath.value} (${r.subpath.exists === null ? 'not checked' : r.subpath.exists ? 'found' : 'missing'})` : '';
        const text =
          r.status === 'resolved' || r.status === 'unindexed'
            ? `${r.status}: ${r.target}${sub}${r.candidates ? `\n  candidates: ${r.candidates.join(', ')}` : ''}`
            : `${r.status}${r.candidates ? `: ${r.candidates.join(', ')}` : ''}`;
        return { json: { ...r }, text };
      }),
    );

  program
    .command('links')
    .description('List every link in a note with its resolution')
    .argument('<note>', 'vault-relative path of the note')
    .action(
      action(reporter, async (ctx, args) => {
        const { withFreshIndex, noteLinksFromIndex } = await import('../../index/index.js');
        const root = await ctx.vaultRoot();
        const note = requireArg(args[0]);
        const r = withFreshIndex(root, ctx.io.env, (h, fresh) => noteLinksFromIndex(h.db, root, note, fresh.warnings)).result;
        const text = r.links.map((l) => `${l.line}\t${l.status}\t${l.raw}${l.target ? `\t→ ${l.target}` : ''}`).join('\n');
        return { json: { note: r.note, total: r.links.length, links: r.links, warnings: r.warnings }, text };
      }),
    );

  program
    .command('backlinks')
    .description('List every link in the vault that resolves to a note (or any vault file)')
    .argument('<note>', 'vault-relative path of the note or file')
    .action(
      action(reporter, async (ctx, args) => {
        const { withFreshIndex, backlinksFromIndex } = await import('../../index/index.js');
        const root = await ctx.vaultRoot();
        const note = requireArg(args[0]);
        const r = withFreshIndex(root, ctx.io.env, (h, fresh) => backlinksFromIndex(h.db, root, note, fresh.warnings)).result;
        const text = [
          ...r.backlinks.map((b) => `${b.source}:${b.line}\t${b.raw}`),
          ...r.ambiguous.map((b) => `${b.source}:${b.line}\t${b.raw}\t(ambiguous)`),
        ].join('\n');
        return { json: { note: r.note, total: r.backlinks.length, backlinks: r.backlinks, ambiguous: r.ambiguous, warnings: r.warnings }, text };
      }),
    );

  program
    .command('check')
    .description('Vault health: unresolved and ambiguous links, broken anchors, orphans, invalid frontmatter, path collisions')
    .action(
      action(reporter, async (ctx) => {
        const { withFreshIndex, checkFromIndex } = await import('../../index/index.js');
        const r = withFreshIndex(await ctx.vaultRoot(), ctx.io.env, (h, fresh) => checkFromIndex(h.db, fresh.warnings)).result;
        const text = Object.entries(r.counts)
          .map(([k, v]) => `${k}: ${v}`)
          .join('\n');
        return { json: { ...r }, text };
      }),
    );
}

function requireArg(value: string | undefined): string {
  if (value === undefined || value === '') throw usageError('missing NOTE argument', 'Give a note path relative to the vault root.');
  return value;
}
