import type { Command } from 'commander';
import { action, collect, parsePositiveInt, parseNonNegativeInt, usageError, type Reporter } from '../command-kit.js';

/**
 * `index`, `search`, `note`, `context`: the read path. Thin: parse, call
 * src/index or src/context (lazily imported), render. All are read-only for the
 * vault; `index`, `search` and `context` refresh the cache file first.
 */
export function register(program: Command, reporter: Reporter): void {
  program
    .command('index')
    .description('Bring the search index up to date (incremental), or rebuild it from scratch')
    .option('--rebuild', 'discard the index file and index the whole vault again')
    .option('--check', 'verify the index file first (SQLite quick_check, FTS5 integrity-check); rebuild it if damaged')
    .action(
      action(reporter, async (ctx, _args, opts) => {
        const { withFreshIndex } = await import('../../index/index.js');
        const root = await ctx.vaultRoot();
        const progress = ctx.io.stderrIsTTY ? progressPrinter(ctx.io.stderr) : undefined;
        const { refresh, handle, integrity } = withFreshIndex(root, ctx.io.env, () => null, {
          rebuild: opts.rebuild === true,
          check: opts.check === true,
          onProgress: progress?.update,
        });
        progress?.done();
        const json = { vault: root, file: handle.file, created: handle.created, integrity, ...refresh };
        const text =
          `${refresh.notes} notes indexed (${refresh.files} files) in ${refresh.took_ms} ms: ` +
          `${refresh.added} added, ${refresh.changed} changed, ${refresh.deleted} deleted, ${refresh.renamed} renamed` +
          (refresh.warnings.length ? `\n${refresh.warnings.length} warnings:\n` + refresh.warnings.map((w) => `  ${w.path}: ${w.message}`).join('\n') : '');
        return { json, text };
      }),
    );

  program
    .command('search')
    .description('Search sections of notes: words (OR, ranked by BM25), "phrases", -excluded, prefix*')
    .argument('<query...>', 'the query; several arguments are joined with spaces')
    .option('--limit <n>', 'most hits to return (default 10)', parsePositiveInt)
    .option('--path <prefix>', 'only notes whose vault path starts with PREFIX')
    .option('--tag <tag>', 'only notes with this tag (nested tags included)')
    .option('--where <key=value>', 'only notes whose property KEY equals VALUE (repeatable)', collect, [])
    .option('--all-sections', 'return every matching section, not only the best one per note')
    .action(
      action(reporter, async (ctx, args, opts) => {
        const { withFreshIndex, searchIndex } = await import('../../index/index.js');
        const query = args.join(' ');
        const where = parseWhere(opts.where as string[]);
        const { result, refresh } = withFreshIndex(await ctx.vaultRoot(), ctx.io.env, (h) =>
          searchIndex(h.db, query, {
            limit: opts.limit as number | undefined,
            pathPrefix: opts.path as string | undefined,
            tag: opts.tag as string | undefined,
            where,
            allSections: opts.allSections === true,
          }),
        );
        const hits = result.hits.map(({ section_id: _id, text: _text, ...hit }) => hit);
        const json = { query, total: result.total, hits, index: { notes: refresh.notes, refreshed: refresh.refreshed, took_ms: refresh.took_ms } };
        const text =
          hits.length === 0
            ? `no matches for ${JSON.stringify(query)}`
            : hits.map((h) => `${h.path}${h.anchor ?? ''}:${h.lines[0]}-${h.lines[1]}  (${h.score})\n  ${h.snippet}`).join('\n');
        return { json, text };
      }),
    );

  program
    .command('note')
    .description('Print a note, or one section of it, with its SHA-256, sections and lines')
    .argument('<path>', 'vault-relative path of the note (.md optional)')
    .option('--heading <heading>', 'only this section: a heading (`Setup`), nested (`Install#Linux`), or a block (`^id`)')
    .action(
      action(reporter, async (ctx, args, opts) => {
        const { readNoteSection } = await import('../../index/index.js');
        if (!args[0]) throw usageError('missing PATH argument', 'Give a note path relative to the vault root.');
        const r = readNoteSection(await ctx.vaultRoot(), args[0], opts.heading as string | undefined);
        return { json: { ...r }, text: r.text };
      }),
    );

  program
    .command('context')
    .description('Build a cited context packet for a question: best sections, one hop of links, within a budget')
    .argument('<question...>', 'the question, in plain language')
    .option('--query <q>', 'an extra search query whose best sections are also included (repeatable)', collect, [])
    .option('--limit <n>', 'best sections per query (default 5)', parsePositiveInt)
    .option('--budget-chars <n>', 'most characters of evidence text (default 12000)', parsePositiveInt)
    .option('--max-linked <n>', 'most sections added by following links one hop (default 3)', parseNonNegativeInt)
    .option('--format <format>', 'json or markdown', 'json')
    .action(
      action(reporter, async (ctx, args, opts) => {
        const format = String(opts.format);
        if (format !== 'json' && format !== 'markdown') throw usageError(`unknown format ${JSON.stringify(format)}`, 'Use --format json or --format markdown.');
        const { buildContext, renderContextMarkdown } = await import('../../context/index.js');
        const packet = buildContext(await ctx.vaultRoot(), ctx.io.env, {
          question: args.join(' '),
          queries: opts.query as string[],
          limit: opts.limit as number | undefined,
          budgetChars: opts.budgetChars as number | undefined,
          maxLinked: opts.maxLinked as number | undefined,
        });
        const markdown = format === 'markdown' ? renderContextMarkdown(packet) : undefined;
        if (markdown !== undefined) return { json: { format: 'markdown', markdown, total: packet.total }, document: markdown };
        return { json: { ...packet }, text: JSON.stringify(packet, null, 2) };
      }),
    );
}

function parseWhere(items: string[]): { key: string; value: string }[] {
  return items.map((item) => {
    const eq = item.indexOf('=');
    if (eq <= 0) throw usageError(`--where ${JSON.stringify(item)} is not KEY=VALUE`, 'Write e.g. --where status=done');
    return { key: item.slice(0, eq).trim(), value: item.slice(eq + 1).trim() };
  });
}

/** `\rindexing 1200/10000` on a terminal's stderr, at most ten times a second. */
function progressPrinter(write: (s: string) => void) {
  let last = 0;
  let shown = false;
  return {
    update(p: { phase: string; done: number; total: number }) {
      const now = Date.now();
      if (now - last < 100 && p.done !== p.total) return;
      last = now;
      shown = true;
      write(`\r${p.phase === 'links' ? 'resolving links' : 'indexing'} ${p.done}/${p.total}\x1b[K`);
    },
    done() {
      if (shown) write('\r\x1b[K');
    },
  };
}
