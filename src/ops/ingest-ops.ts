import { VaultgateError } from '../errors.js';
import { defineOperation, READ_ONLY } from './operation.js';
import { sourceResolver } from './propose-op.js';

/**
 * `ingest SOURCE [--into FOLDER]` and `ingest --list` (issue 22 §3; src/ingest):
 * reads only. What to file and how is the agent's; the one proposal it then
 * makes (capture + new note + index/log lines) is reviewed like any other.
 */
export const ingestOp = defineOperation({
  name: 'ingest',
  command: 'ingest',
  tool: 'ingest',
  group: 'read',
  summary: 'Read a source to file it (writes nothing): its capture change, cited fragments, link suggestions; --list: the drop folder’s states',
  description: 'File it as one proposal: capture + new note + index/log lines (docs/ingest.md).',
  toolDescription:
    'Read a source in the vault to file it (writes nothing): its capture request (paste it into propose\'s changes), cited fragments, link suggestions. list: the drop folder and each source\'s state.',
  examples: ['vaultgate ingest inbox/article.html --into Sources', 'vaultgate ingest --list', 'vaultgate ingest notes.md --json'],
  params: [
    { name: 'source', type: 'string', positional: true, required: false, description: 'the file (MCP: a vault path)' },
    { name: 'into', type: 'string', placeholder: 'folder', description: 'folder for the new note' },
    { name: 'list', type: 'boolean', description: 'the drop folder (inbox/) and each source’s state' },
    { name: 'limit', type: 'int', min: 1, max: 10_000, default: 200, placeholder: 'n', description: 'most fragments' },
  ] as const,
  // kept short: every tool's schema is part of what an MCP client loads (tools/list)
  output: {
    capture: { object: { action: 'string', source: 'string' }, optional: true },
    sources: { array: { path: 'string', state: 'string' }, optional: true },
  },
  annotations: READ_ONLY,
  run: async function runIngest(input, ctx) {
    const { ingestSource, listDropFolder } = await import('../ingest/index.js');
    const session = ctx.session();
    if (input.list) {
      if (input.source !== undefined || input.into !== undefined) throw new VaultgateError('USAGE', '--list takes no SOURCE and no --into', { hint: 'Run `vaultgate ingest --list`, then `vaultgate ingest SOURCE`.' });
      return { ...listDropFolder(session) };
    }
    if (input.source === undefined) throw new VaultgateError('USAGE', 'missing SOURCE', { hint: 'Give the file to ingest (`vaultgate ingest inbox/article.md`), or --list.', details: { param: 'source' } });
    return { ...ingestSource(session, { source: sourceResolver(ctx)(input.source), ...(input.into === undefined ? {} : { into: input.into }), limit: input.limit }) };
  },
  text: (out) => {
    const r = out as Record<string, any>;
    if (Array.isArray(r.sources)) {
      const s = r.sources as Array<{ path: string; state: string; proposals: Array<{ id: string; state: string }> }>;
      if (s.length === 0) return `nothing waiting in ${r.folder}/`;
      return s.map((x) => `${x.state.padEnd(9)} ${x.path}${x.proposals.length ? `  (${x.proposals.map((p) => `${p.id} ${p.state}`).join(', ')})` : ''}`).join('\n');
    }
    const lines = [
      `${r.source.path} (${r.source.kind ?? 'binary'}, ${r.source.bytes} bytes): ${r.status.state}`,
      `capture → ${r.captured.path}${r.captured.existing ? ' (already captured)' : ''}`,
      `new note → ${r.suggested_note}`,
      ...(r.index_note ? [`index note: ${r.index_note.path}`] : []),
      ...(r.log_note ? [`log note: ${r.log_note.path}`] : []),
      ...(r.suggested_links.length ? ['links:', ...r.suggested_links.map((l: any) => `  ${l.score.toFixed(3)} ${l.link}  ${l.path}`)] : []),
      `fragments (${r.fragments.length} of ${r.total_fragments}):`,
      ...r.fragments.map((f: any) => `  ${f.id} L${f.lines[0]}-${f.lines[1]}  ${f.text.split('\n')[0].slice(0, 100)}`),
      ...r.warnings.map((w: string) => `warning: ${w}`),
    ];
    return lines.join('\n');
  },
});
