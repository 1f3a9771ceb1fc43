import { VaultgateError } from '../errors.js';
import { consentGate } from './consent-gate.js';
import { defineOperation, READ_ONLY, type OpContext } from './operation.js';
import { actorOf } from './settings.js';

/**
 * `atomize init|chunk|extract|tidy|write|strip|check|promote|status` (issue 24):
 * thin faces over src/wing/atomize. `status` and `check` are MCP read tools too;
 * the rest are CLI-only (they run long, and write the work folder).
 */

const WORK = { name: 'work', type: 'string', required: true, placeholder: 'dir', nonEmpty: true, description: 'the work folder (outside the vault) that holds the run: atomize.json, chapters.tsv, registry.tsv, progress/, notes/' } as const;
const WRITES_WORK = { readOnly: false, destructive: false, idempotent: true, openWorld: false } as const;

async function open(ctx: OpContext, work: string) {
  const { openWork } = await import('../wing/atomize/index.js');
  return openWork(ctx.cwd, work);
}

/** The vault's files (as Obsidian sees them) and its link format: what links and clashes are judged against. */
async function vaultView(ctx: OpContext) {
  const { scanVault } = await import('../vault/index.js');
  const { buildFileIndex, readLinkFormat } = await import('../links/index.js');
  const root = ctx.session().root;
  const vaultFiles = scanVault(root).files.map((f) => f.path);
  return { root, vaultFiles, vaultIndex: buildFileIndex(vaultFiles.map((p) => ({ path: p, indexed: true }))), format: readLinkFormat(root).format };
}

export const atomizeInitOp = defineOperation({
  name: 'atomize_init',
  command: 'atomize init',
  group: 'write',
  summary: 'Start cutting a Markdown book into atomic notes: record its sha256, split chapters, mark narrative ones',
  description:
    'SOURCE is a Markdown file (a vault note or a file outside the vault). Chapters are its level-1 and level-2 headings (DIR/chapters.tsv, whose `narrative` column you may edit). ' +
    'Narrative chapters (examples of play, GM advice) are never written as entity notes; a map of content links to them. Writes only the work folder.',
  examples: ['vaultgate atomize init Books/Rules.md --work ~/atomize/rules --into Rules --narrative "Example of play"', 'vaultgate atomize init ./book.md --work /tmp/book --into Library/Book'],
  params: [
    { name: 'source', type: 'string', positional: true, nonEmpty: true, description: 'the Markdown file to cut (relative to this folder, or a vault path)' },
    WORK,
    { name: 'narrative', type: 'strings', placeholder: 'heading', description: 'a chapter heading whose chapter is connected prose (repeatable)' },
    { name: 'into', type: 'string', placeholder: 'folder', description: 'the vault folder the notes will be proposed into' },
  ] as const,
  annotations: WRITES_WORK,
  run: async function runAtomizeInit(input, ctx) {
    const { atomizeInit } = await import('../wing/atomize/index.js');
    let vaultRoot: string | null = null;
    try {
      vaultRoot = ctx.session().root;
    } catch (e) {
      if (!(e instanceof VaultgateError) || (e.code !== 'VAULT_NOT_FOUND' && e.code !== 'VAULT_NOT_DIRECTORY')) throw e;
    }
    const r = atomizeInit({ source: input.source, work: input.work, narrative: input.narrative, cwd: ctx.cwd, vaultRoot, ...(input.into === undefined ? {} : { into: input.into }) });
    return { ...r };
  },
  text: (r) => [`work ${r.work}: ${r.chapters.length} chapters (${r.narrative} narrative) from ${r.source.file}`, ...r.chapters.map((c) => `${c.id}  ${c.narrative ? 'narrative ' : ''}${c.heading || '(before the first heading)'}  lines ${c.start_line}-${c.end_line}`)].join('\n'),
});

export const atomizeChunkOp = defineOperation({
  name: 'atomize_chunk',
  command: 'atomize chunk',
  group: 'write',
  summary: 'Cut the chapters into chunks for the model: never across a chapter, never inside a table, list or code block',
  examples: ['vaultgate atomize chunk --work ~/atomize/rules', 'vaultgate atomize chunk --work ~/atomize/rules --max-chars 2500'],
  params: [WORK, { name: 'max_chars', type: 'int', min: 200, max: 1_000_000, default: 4000, placeholder: 'n', description: 'most characters per chunk (a longer table or list is a chunk of its own)' }] as const,
  annotations: WRITES_WORK,
  run: async function runAtomizeChunk(input, ctx) {
    const { atomizeChunk } = await import('../wing/atomize/index.js');
    return { ...atomizeChunk(await open(ctx, input.work), input.max_chars) };
  },
  text: (r) => `${r.chunks} chunks in ${r.chapters} chapters (${r.narrative_chunks} narrative), largest ${r.largest} chars`,
});

export const atomizeExtractOp = defineOperation({
  name: 'atomize_extract',
  command: 'atomize extract',
  group: 'write',
  summary: 'Ask a chat model for the entities of each chunk (strict schema vaultgate.atomize.extract.v1), resumable, one progress file per chunk',
  description:
    'One call per chunk not yet done; the model sees plain text (links reduced to their words). An answer that breaks the schema is asked again (3 attempts), then the chunk is recorded as failed and asked again on the next run. ' +
    'A provider off this machine needs the person\'s consent (--consent on a terminal, or the web inbox), as for `relate send`; unreachable provider: exit 69. Rebuilds DIR/registry.tsv (kept when you edited it).',
  examples: ['vaultgate atomize extract --work ~/atomize/rules --provider ollama --model qwen2.5:7b', 'vaultgate atomize extract --work ~/atomize/rules --provider ollama --redo c0007'],
  params: [
    WORK,
    { name: 'provider', type: 'string', required: true, nonEmpty: true, placeholder: 'name', description: 'chat provider: `ollama`, or one configured under `providers:` in the machine config' },
    { name: 'model', type: 'string', placeholder: 'name', description: 'chat model (else the provider’s chat_model)' },
    { name: 'redo', type: 'strings', placeholder: 'chunk', description: 'ask this chunk again even if it is done (repeatable)' },
    { name: 'consent', type: 'boolean', cliOnly: true, description: 'for a provider off this machine: show what would be sent where and ask you on this terminal' },
  ] as const,
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: true },
  run: async function runAtomizeExtract(input, ctx) {
    const { atomizeExtract } = await import('../wing/atomize/index.js');
    const work = await open(ctx, input.work);
    const session = ctx.session();
    return { ...(await atomizeExtract(work, { provider: input.provider, model: input.model, redo: input.redo, gate: consentGate(ctx, input.consent), root: session.root, env: session.env })) };
  },
  text: (r) =>
    [`${r.asked} chunks asked (${r.requests} requests), ${r.skipped} already done; ${r.done} done, ${r.failed} failed of ${r.chunks}; ${r.entities} entities in the registry (${r.registry.registry})`, ...r.failed_chunks.map((f) => `failed ${f.chunk}: ${f.errors[f.errors.length - 1] ?? ''}`)].join('\n'),
});

export const atomizeTidyOp = defineOperation({
  name: 'atomize_tidy',
  command: 'atomize tidy',
  group: 'write',
  summary: 'Validate DIR/registry.tsv: duplicate names and aliases, empty names, note paths that clash with vault notes (case and Unicode folded)',
  examples: ['vaultgate atomize tidy --work ~/atomize/rules', 'vaultgate atomize tidy --work ~/atomize/rules --json'],
  params: [WORK] as const,
  annotations: WRITES_WORK,
  run: async function runAtomizeTidy(input, ctx) {
    const { atomizeTidy } = await import('../wing/atomize/index.js');
    const work = await open(ctx, input.work);
    return { ...atomizeTidy(work, (await vaultView(ctx)).vaultIndex) };
  },
  text: (r) => `registry ok: ${r.rows} rows, ${r.notes} notes into ${r.into ?? '(no --into yet)'}`,
});

export const atomizeWriteOp = defineOperation({
  name: 'atomize_write',
  command: 'atomize write',
  group: 'write',
  summary: 'Write one draft note per entity in DIR/notes/: sentences in source order, a Source line, links from the registry',
  examples: ['vaultgate atomize write --work ~/atomize/rules', 'vaultgate atomize tidy --work ~/atomize/rules && vaultgate atomize write --work ~/atomize/rules'],
  params: [WORK] as const,
  annotations: WRITES_WORK,
  run: async function runAtomizeWrite(input, ctx) {
    const { atomizeWrite } = await import('../wing/atomize/index.js');
    const work = await open(ctx, input.work);
    return { ...atomizeWrite(work, await vaultView(ctx)) };
  },
  text: (r) => `${r.notes} drafts (${r.sentences} sentences, ${r.links_added} links added) for ${r.entities} entities; ${r.narrative_only} narrative-only entities get no note`,
});

export const atomizeStripOp = defineOperation({
  name: 'atomize_strip',
  command: 'atomize strip',
  group: 'write',
  summary: 'Remove every draft line that comes from a narrative chapter, and write a map-of-content draft linking those chapters',
  examples: ['vaultgate atomize strip --work ~/atomize/rules', 'vaultgate atomize strip --work ~/atomize/rules && vaultgate atomize check --work ~/atomize/rules'],
  params: [WORK] as const,
  annotations: WRITES_WORK,
  run: async function runAtomizeStrip(input, ctx) {
    const { atomizeStrip } = await import('../wing/atomize/index.js');
    const work = await open(ctx, input.work);
    return { ...atomizeStrip(work, await vaultView(ctx)) };
  },
  text: (r) => `${r.lines_removed} narrative lines removed from ${r.notes_changed} of ${r.notes} drafts${r.map ? `; map of content ${r.map}` : ''}`,
});

export const atomizeCheckOp = defineOperation({
  name: 'atomize_check',
  command: 'atomize check',
  tool: 'atomize_check',
  group: 'read',
  summary: 'List every draft sentence that is not word for word in the source (frontmatter, headings and the Source line aside)',
  examples: ['vaultgate atomize check --work ~/atomize/rules', 'vaultgate atomize check --work ~/atomize/rules --json'],
  params: [WORK] as const,
  output: { notes: 'integer', sentences: 'integer', verbatim: 'integer', novel: { array: { note: 'string', line: 'integer', text: 'string' } } },
  annotations: READ_ONLY,
  run: async function runAtomizeCheck(input, ctx) {
    const { atomizeCheck } = await import('../wing/atomize/index.js');
    return { ...atomizeCheck(await open(ctx, input.work)) };
  },
  text: (r) => [`${r.verbatim} of ${r.sentences} sentences verbatim in ${r.notes} notes; ${r.novel.length} novel`, ...r.novel.map((n) => `${n.note}:${n.line}  ${n.text}`)].join('\n'),
});

export const atomizePromoteOp = defineOperation({
  name: 'atomize_promote',
  command: 'atomize promote',
  group: 'write',
  summary: 'Propose the drafts into --into as ordinary proposals (one per batch of notes), reviewed with the `verbatim` check',
  description: 'A novel sentence blocks the proposal in review unless it was made with --allow-novel. Notes already proposed by an earlier run are not proposed again, unless their proposal was declined.',
  examples: ['vaultgate atomize promote --work ~/atomize/rules', 'vaultgate atomize promote --work ~/atomize/rules --batch 20'],
  params: [
    WORK,
    { name: 'batch', type: 'int', min: 1, max: 1000, default: 50, placeholder: 'n', description: 'notes per proposal' },
    { name: 'allow_novel', type: 'boolean', description: 'a sentence not word for word in the source only warns in review' },
  ] as const,
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  run: async function runAtomizePromote(input, ctx) {
    const { atomizePromote } = await import('../wing/atomize/index.js');
    const { propose, show } = await import('../proposals/index.js');
    const work = await open(ctx, input.work);
    const session = ctx.session();
    const agent = ctx.env.VAULTGATE_AGENT?.trim() || 'atomize';
    const stateOf = (id: string) => {
      try {
        return show(session, id, actorOf(ctx.env)).proposal.state;
      } catch {
        return null;
      }
    };
    return { ...(await atomizePromote(work, { batch: input.batch, allowNovel: input.allow_novel, agent, stateOf }, (p) => propose(session, p, actorOf(ctx.env, agent)))) };
  },
  text: (r) => [`${r.notes} notes proposed into ${r.into ?? 'the vault root'} (${r.already_proposed} proposed before)`, ...r.proposals.map((p) => `${p.id}  ${p.state}  ${p.notes} notes${p.blocking.length ? `  blocked by ${p.blocking.join(', ')}` : ''}`)].join('\n'),
});

export const atomizeStatusOp = defineOperation({
  name: 'atomize_status',
  command: 'atomize status',
  tool: 'atomize_status',
  group: 'read',
  summary: 'Each atomize step of a work folder: done, pending or failed, with counts',
  examples: ['vaultgate atomize status --work ~/atomize/rules', 'vaultgate atomize status --work ~/atomize/rules --json'],
  params: [WORK] as const,
  output: {
    work: 'string',
    source: { object: { file: 'string', vault_path: 'string|null', sha256: 'string' } },
    into: 'string|null',
    steps: { array: { step: 'string', status: 'string', done: 'integer', pending: 'integer', failed: 'integer', detail: 'string' } },
  },
  annotations: READ_ONLY,
  run: async function runAtomizeStatus(input, ctx) {
    const { atomizeStatus } = await import('../wing/atomize/index.js');
    return { ...atomizeStatus(await open(ctx, input.work)) };
  },
  text: (r) => r.steps.map((s) => `${s.step.padEnd(8)} ${s.status.padEnd(8)} ${s.detail}`).join('\n'),
});
