import fs from 'node:fs';
import path from 'node:path';
import { VaultgateError } from '../errors.js';
import type { ChangeRequest, ProposeInput, ReviewView } from '../proposals/index.js';
import { defineOperation, type OpContext } from './operation.js';
import { decodeUtf8Arg, readFileArg } from './read-bounded.js';
import { actorOf, agentName } from './settings.js';

/**
 * The proposal verbs (docs/proposals.md): `propose`, `review`, `show`, `apply`,
 * `decline`, `reopen`, `rollback`, `proposals`, `log`. Each calls the proposals
 * core and shapes nothing but input: reading a `--content-file`, `--stdin` or a
 * `--changes` file is the CLI's way of sending what MCP sends inline
 * (`content`, `changes_json`). `apply` has no MCP tool: agents propose, people apply.
 */

/** A review check as documented (docs/json.md): the MCP output schemas name these fields. */
const CHECK = { name: 'string', ok: 'boolean', severity: 'string', message: 'string' } as const;

const proposalsCore = () => import('../proposals/index.js');

const idArg = {
  name: 'id',
  type: 'string',
  positional: true,
  description: 'proposal id (p-7)',
  pattern: { regex: /^p-[1-9][0-9]{0,17}$/, hint: 'Proposal ids look like p-7; `vaultgate proposals` lists them.' },
} as const;

/** Largest text one proposal input may carry: the engine's per-operation limit (each file's is checked by the core). */
async function maxInputBytes(): Promise<number> {
  return (await import('../txn/index.js')).MAX_OPERATION_BYTES;
}

function decodeText(bytes: Buffer, what: string): string {
  return decodeUtf8Arg(bytes, what, 'Proposals carry text; save it as UTF-8.', { keepBom: true });
}

async function readInputFile(ctx: OpContext, file: string, what: string): Promise<string> {
  const bytes = readFileArg(ctx, file, {
    limit: await maxInputBytes(),
    what,
    tooLarge: (limit) => new VaultgateError('BUNDLE_LIMIT', `${what} is over ${limit} bytes`, { details: { limit }, hint: 'Split the change into several proposals.' }),
  });
  return decodeText(bytes, `${what} ${file}`);
}

interface ContentSources {
  content: string | undefined;
  content_file: string | undefined;
  stdin: boolean;
}

/** The text of a change: exactly one of `content`, `content_file`, `stdin`. */
async function contentOf(ctx: OpContext, s: ContentSources, form: string): Promise<string> {
  const given = [s.content !== undefined, s.content_file !== undefined, s.stdin].filter(Boolean).length;
  if (given !== 1) {
    throw new VaultgateError('USAGE', `${form} needs its text from exactly one of --content-file FILE, --stdin or --content TEXT`, {
      hint: 'e.g. `vaultgate propose Notes/a.md --content-file new.md --base <sha256>`.',
    });
  }
  if (s.content !== undefined) return s.content;
  return readInputFile(ctx, s.stdin ? '-' : s.content_file!, s.stdin ? 'stdin' : '--content-file');
}

/**
 * Where a capture's `source` is read from: on the CLI relative to the working
 * folder, or — when no such file is there — a vault path (what `ingest`
 * answers with, so its capture change works pasted from any folder); over MCP
 * relative to the vault root and only inside it (an agent names vault paths,
 * such as a file in the drop folder; it does not reach into the person's disk
 * through the vault's door).
 */
export function sourceResolver(ctx: OpContext): (source: string) => string {
  return (source) => {
    if (ctx.face !== 'mcp') {
      const here = path.resolve(ctx.cwd, source);
      if (path.isAbsolute(source) || fs.existsSync(here)) return here;
      const inVault = path.resolve(ctx.session().root, source);
      return fs.existsSync(inVault) ? inVault : here;
    }
    const root = ctx.session().root;
    const abs = path.resolve(root, source);
    const rel = path.relative(root, abs);
    if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) {
      throw new VaultgateError('INVALID_INPUT', `capture source ${JSON.stringify(source)} is outside the vault`, {
        hint: 'Over MCP a capture reads a file inside the vault (e.g. one in the drop folder, inbox/); put the file there first.',
      });
    }
    return abs;
  };
}

function usage(message: string, hint = 'See `vaultgate propose --help`.'): VaultgateError {
  return new VaultgateError('USAGE', message, { hint });
}


function reviewText(r: ReviewView & { proposal: { id: string; state: string } }): string {
  const marks = r.checks.map((c) => `${(c.ok ? 'ok' : c.severity === 'block' ? 'BLOCK' : 'warn').padEnd(5)} ${c.name.padEnd(14)} ${c.message}`);
  // every link a move or heading rename rewrites, where and how (the diff shows them in context)
  const rewritten = r.files.flatMap((f) => (f.links_rewritten ?? []).map((l) => `  ${f.to ?? f.path}:${l.line}  ${l.before} → ${l.after}`));
  const links = rewritten.length > 0 ? ['', `links rewritten (${rewritten.length}):`, ...rewritten] : [];
  return [`${r.proposal.id}: ${r.proposal.state}${r.review_hash ? `  review_hash ${r.review_hash}` : ''}`, ...marks, ...links, '', r.diff].join('\n');
}

export const proposeOp = defineOperation({
  name: 'propose',
  reviewed: true,
  command: 'propose',
  tool: 'propose',
  group: 'write',
  summary: 'Propose a change to the vault (writes nothing into it): full text, delete, move, replace, section, append, or several files',
  description:
    'Every form becomes an exact full-text change against the version you read (--base: the sha256 `note` or `search` printed), ' +
    'is stored, and is reviewed at once: the answer says whether it is pending or blocked, and why. A person applies it (`vaultgate apply`). ' +
    'A stale --base exits 75 and stores nothing: re-read the note and propose again.',
  examples: [
    'vaultgate propose Notes/Idea.md --content-file idea.md --base <sha256> --title "Expand the idea"',
    'vaultgate propose Notes/Idea.md --replace "teh" --with "the" --base <sha256>',
    'vaultgate propose Notes/Idea.md --append-to-section "Open questions" --content-file q.md --base <sha256>',
    'vaultgate propose --move Inbox/draft.md Notes/Draft.md --base <sha256>',
    'vaultgate propose --rename Notes/Draft.md "Final plan" --base <sha256>',
    'vaultgate propose --move Projects/Old/ Archive/Old/',
    'vaultgate propose --rename-heading Notes/Plan.md "Open questions" "Questions" --base <sha256>',
    'vaultgate propose --changes changes.json --agent claude',
    'vaultgate propose --capture inbox/article.html --type capture',
  ],
  params: [
    { name: 'path', type: 'string', positional: true, required: false, description: 'the note (for --move and --rename: the file or folder to move)' },
    { name: 'to', type: 'string', positional: true, required: false, description: 'for --move: the destination (a folder path ending in / keeps the name); for --rename: the new name; for --rename-heading: the heading to rename ("Heading > Sub")' },
    { name: 'new_heading', type: 'string', positional: true, required: false, description: 'for --rename-heading: the heading’s new text' },
    { name: 'base', type: 'string', placeholder: 'sha256|none', description: 'SHA-256 of the version you read (`note` and `search` print it); `none` for a new note', pattern: { regex: /^([0-9a-f]{64}|none)$/, hint: 'Give the 64-hex sha256 printed by `vaultgate note PATH`, or `none` for a new note.' } },
    { name: 'content', type: 'string', placeholder: 'text', description: 'the text, inline: the note’s full new text, or the section/append text' },
    { name: 'content_file', type: 'string', placeholder: 'file', cliOnly: true, description: 'the text, from this file' },
    { name: 'stdin', type: 'boolean', cliOnly: true, description: 'the text, from stdin' },
    { name: 'delete', type: 'boolean', description: 'delete PATH' },
    { name: 'move', type: 'boolean', description: 'move PATH (a file, or a folder and everything in it) to TO; every link to what moves is rewritten to follow it, in the same proposal' },
    { name: 'rename', type: 'boolean', description: 'rename PATH (a file or folder) to the name TO in the same folder (a note keeps .md); links follow' },
    { name: 'rename_heading', type: 'boolean', description: 'rename the heading TO of note PATH to NEW_HEADING; links to it follow' },
    { name: 'replace', type: 'string', placeholder: 'old', description: 'replace this exact text, which must occur exactly once, with --with' },
    { name: 'with', type: 'string', placeholder: 'new', description: 'the text that replaces --replace (may be empty)' },
    { name: 'section', type: 'string', placeholder: 'heading', description: 'replace the body of this section ("Heading > Sub") with the text' },
    { name: 'append', type: 'boolean', description: 'append the text to the end of the note' },
    { name: 'append_file', type: 'string', placeholder: 'file', cliOnly: true, description: 'append this file’s text to the end of the note' },
    { name: 'append_to_section', type: 'string', placeholder: 'heading', description: 'append the text at the end of this section ("Heading > Sub")' },
    { name: 'capture', type: 'string', placeholder: 'file', description: 'store this file’s exact bytes at .raw/captured/<sha256>.<ext> (MCP: a vault path)' },
    { name: 'changes', type: 'string', placeholder: 'file.json', cliOnly: true, description: 'several files at once: a JSON document (- for stdin; docs/json.md)' },
    { name: 'changes_json', type: 'string', mcpOnly: true, jsonText: true, description: 'several files at once: the JSON document {"title","summary"?,"type"?,"changes":[{"path","action","content"?,"base","to"?} or {"action":"capture","source"}]} (an object, or its text)' },
    { name: 'type', type: 'string', placeholder: 'type', description: 'operation type whose scope the paths must stay in (default generic); out of scope: 77' },
    { name: 'title', type: 'string', placeholder: 'text', description: 'one line saying what the change is for (default: what it does)' },
    { name: 'summary', type: 'string', placeholder: 'text', description: 'why, for the person who reviews it' },
    { name: 'agent', type: 'string', placeholder: 'name', description: 'who proposes (default: VAULTGATE_AGENT)' },
    { name: 'session', type: 'string', placeholder: 'id', description: 'the agent’s session id, to group its proposals' },
    { name: 'scenario', type: 'string', placeholder: 'name', description: 'the scenario whose write rules apply' },
    { name: 'allow_shrink', type: 'boolean', description: 'the change removes more than half of a note on purpose' },
    { name: 'allow_relink', type: 'boolean', description: 'existing links may change their target (review warns instead of blocking)' },
    { name: 'allow_broken_links', type: 'boolean', description: 'links to a note the change deletes may be left dangling (review warns instead of blocking)' },
  ] as const,
  output: { proposal: { object: { id: 'string', state: 'string', title: 'string', files: 'array' } }, review: { object: { checks: { array: CHECK }, files: { array: { path: 'string', action: 'string', old_sha256: 'string|null', new_sha256: 'string|null', diff: 'string' } }, diff: 'string', review_hash: 'string|null' } } },
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  async run(input, ctx) {
    const { propose, parseChangesDocument } = await proposalsCore();
    const session = ctx.session();
    const forms = (
      [
        ['--delete', input.delete],
        ['--move', input.move],
        ['--rename', input.rename],
        ['--rename-heading', input.rename_heading],
        ['--replace', input.replace !== undefined],
        ['--section', input.section !== undefined],
        ['--append', input.append],
        ['--append-file', input.append_file !== undefined],
        ['--append-to-section', input.append_to_section !== undefined],
        ['--capture', input.capture !== undefined],
        ['--changes', input.changes !== undefined || input.changes_json !== undefined],
      ] as const
    ).filter(([, on]) => on).map(([f]) => f);
    if (forms.length > 1) throw usage(`give one form of change, not ${forms.join(' and ')}`);
    const form = forms[0] ?? 'full text';
    const agent = input.agent ?? agentName(ctx.env);
    const common = {
      ...(input.summary === undefined ? {} : { summary: input.summary }),
      ...(agent === undefined ? {} : { agent }),
      ...(input.session === undefined ? {} : { session: input.session }),
      ...(input.scenario === undefined ? {} : { scenario: input.scenario }),
      allow_shrink: input.allow_shrink,
      allow_relink: input.allow_relink,
      allow_broken_links: input.allow_broken_links,
    };
    const sources: ContentSources = { content: input.content, content_file: input.content_file, stdin: input.stdin };
    const hasContent = input.content !== undefined || input.content_file !== undefined || input.stdin;
    let request: ProposeInput;
    if (form === '--changes') {
      if (input.changes !== undefined && input.changes_json !== undefined) throw usage('give the changes as a file or inline, not both');
      if (input.path !== undefined || input.base !== undefined || hasContent || input.with !== undefined) throw usage('--changes takes every path, base and text from its JSON document');
      if (input.title !== undefined || input.summary !== undefined) throw usage('--changes takes its title and summary from the JSON document');
      const text = input.changes_json ?? (await readInputFile(ctx, input.changes!, '--changes'));
      const doc = parseChangesDocument(text, input.changes_json !== undefined ? 'changes_json' : input.changes === '-' ? 'stdin' : input.changes!, sourceResolver(ctx));
      if (input.type !== undefined && doc.type !== undefined && input.type !== doc.type) throw usage(`--type ${input.type} and the document's "type": ${JSON.stringify(doc.type)} differ; give one`);
      const type = input.type ?? doc.type;
      request = { ...common, title: doc.title, ...(doc.summary === undefined ? {} : { summary: doc.summary }), ...(type === undefined ? {} : { type }), changes: doc.changes };
    } else if (form === '--capture') {
      if (input.path !== undefined || input.base !== undefined || hasContent || input.with !== undefined) throw usage('--capture takes only the file to capture: `vaultgate propose --capture FILE`');
      request = {
        ...common,
        ...(input.title === undefined ? {} : { title: input.title }),
        ...(input.type === undefined ? {} : { type: input.type }),
        changes: [{ kind: 'capture', source: sourceResolver(ctx)(input.capture!) }],
      };
    } else {
      if (input.path === undefined) throw usage(`${form === 'full text' ? 'a change' : form} needs PATH`);
      const moving = form === '--move' || form === '--rename';
      if (input.to !== undefined && !moving && form !== '--rename-heading') throw usage(`only --move, --rename and --rename-heading take a second argument (got ${JSON.stringify(input.to)})`);
      if (input.new_heading !== undefined && form !== '--rename-heading') throw usage(`only --rename-heading takes a third argument (got ${JSON.stringify(input.new_heading)})`);
      if (moving) {
        // a folder has no sha256: a folder move pins each file's hash as read now
        if (hasContent || input.with !== undefined) throw usage(`${form} takes no text`);
        if (input.to === undefined) throw usage(form === '--move' ? '--move needs FROM and TO: `vaultgate propose --move FROM TO --base <sha256>`' : '--rename needs PATH and NEWNAME: `vaultgate propose --rename PATH NEWNAME --base <sha256>`');
        if (input.base === 'none') throw usage(`--base none means a new note; ${form} needs the existing file’s sha256`);
        const base = input.base ?? null;
        const change: ChangeRequest = form === '--move' ? { kind: 'move', path: input.path, to: input.to, base } : { kind: 'rename', path: input.path, name: input.to, base };
        return { ...(await propose(session, { ...common, ...(input.title === undefined ? {} : { title: input.title }), ...(input.type === undefined ? {} : { type: input.type }), changes: [change] }, actorOf(ctx.env, agent))) };
      }
      if (input.base === undefined) throw usage('give --base: the sha256 of the version you read (`vaultgate note PATH`), or `none` for a new note', 'The base is how vaultgate knows your change is not made on an outdated copy.');
      if (input.with !== undefined && form !== '--replace') throw usage('--with goes with --replace');
      const base = input.base === 'none' ? null : input.base;
      if (base === null && form !== 'full text') throw usage(`--base none means a new note; ${form} needs the existing note’s sha256`);
      const b = base as string;
      let change: ChangeRequest;
      if (form === '--delete') {
        if (hasContent) throw usage(`${form} takes no text`);
        change = { kind: 'delete', path: input.path, base: b };
      } else if (form === '--rename-heading') {
        if (hasContent || input.with !== undefined) throw usage('--rename-heading takes no text: `vaultgate propose --rename-heading NOTE "Old" "New" --base <sha256>`');
        if (input.to === undefined || input.new_heading === undefined) throw usage('--rename-heading needs NOTE, the heading and its new text: `vaultgate propose --rename-heading NOTE "Old" "New" --base <sha256>`');
        change = { kind: 'rename_heading', path: input.path, heading: input.to, to: input.new_heading, base: b };
      } else if (form === '--replace') {
        if (hasContent) throw usage('--replace takes its new text from --with');
        if (input.with === undefined) throw usage('--replace needs --with (the new text; may be empty)');
        change = { kind: 'replace', path: input.path, old: input.replace!, with: input.with, base: b };
      } else if (form === '--append-file') {
        if (hasContent) throw usage('--append-file is the text; give no other');
        change = { kind: 'append', path: input.path, content: await readInputFile(ctx, input.append_file!, '--append-file'), base: b };
      } else {
        const content = await contentOf(ctx, sources, form);
        if (form === '--section') change = { kind: 'section', path: input.path, heading: input.section!, content, base: b };
        else if (form === '--append') change = { kind: 'append', path: input.path, content, base: b };
        else if (form === '--append-to-section') change = { kind: 'append_to_section', path: input.path, heading: input.append_to_section!, content, base: b };
        else change = { kind: 'write', path: input.path, content, base };
      }
      request = { ...common, ...(input.title === undefined ? {} : { title: input.title }), ...(input.type === undefined ? {} : { type: input.type }), changes: [change] };
    }
    return { ...(await propose(session, request, actorOf(ctx.env, agent))) };
  },
  text: (r) =>
    [
      ...(r.captures ?? []).map((c) => `${c.existing ? 'already captured' : 'captures'} ${c.source} as ${c.path}${c.existing ? ' (not part of this proposal)' : ''}`),
      reviewText({ proposal: r.proposal, ...r.review }),
    ].join('\n'),
});

export const reviewOp = defineOperation({
  name: 'review',
  reviewed: true,
  command: 'review',
  tool: 'review',
  group: 'write',
  summary: 'Check a proposal again against the vault as it is: named checks, the exact diff, and the review hash apply needs',
  description: 'Re-runnable: pending and blocked follow the vault. Writes nothing into the vault (the result is stored with the proposal).',
  examples: ['vaultgate review p-7', 'vaultgate review p-7 --json'],
  params: [idArg] as const,
  output: { proposal: { object: { id: 'string', state: 'string' } }, checks: { array: CHECK }, files: { array: { path: 'string', action: 'string', old_sha256: 'string|null', new_sha256: 'string|null', diff: 'string' } }, diff: 'string', review_hash: 'string|null' },
  annotations: { readOnly: false, destructive: false, idempotent: true, openWorld: false },
  async run(input, ctx) {
    const { review } = await proposalsCore();
    return { ...(await review(ctx.session(), input.id, actorOf(ctx.env))) };
  },
  text: (r) => reviewText(r),
});

export const showOp = defineOperation({
  name: 'show',
  reviewed: true,
  command: 'show',
  group: 'write',
  summary: 'A proposal and its last review, without checking again',
  examples: ['vaultgate show p-7', 'vaultgate show p-7 --json'],
  params: [idArg] as const,
  output: { proposal: { object: { id: 'string', state: 'string', title: 'string', agent: 'string|null' } }, checks: { array: CHECK }, files: { array: { path: 'string', action: 'string', old_sha256: 'string|null', new_sha256: 'string|null', diff: 'string' } }, diff: 'string', review_hash: 'string|null' },
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  async run(input, ctx) {
    const { show } = await proposalsCore();
    return { ...show(ctx.session(), input.id, actorOf(ctx.env)) };
  },
  text: (r) => [`${r.proposal.id} (${r.proposal.state}) ${r.proposal.title}`, `by ${r.proposal.agent ?? '-'}, ${r.proposal.created_at}`, '', reviewText(r)].join('\n'),
});

export const applyOp = defineOperation({
  name: 'apply',
  reviewed: true,
  command: 'apply',
  group: 'write',
  summary: 'Apply a reviewed proposal: re-reviewed under the vault lock, written only if nothing blocks and the hash is the one you approved',
  description:
    'Stale (the vault changed) exits 75; a protected area exits 77; a declined proposal exits 2 (reopen it first). ' +
    'Over MCP a tool only when the server was started with --allow-apply: the MCP client’s approval prompt for this call is then the only person in the loop ' +
    '(the review hash comes from a `review` call anyone can make, so it proves nothing about a person). Call it only when the person has read the diff and asked for it.',
  examples: ['vaultgate review p-7', 'vaultgate apply p-7 --review-hash <review_hash from vaultgate review p-7>', 'vaultgate apply p-7 --review-hash <review_hash> --json'],
  params: [
    idArg,
    {
      name: 'review_hash',
      type: 'string',
      required: true,
      placeholder: 'sha256',
      description: 'the review_hash of the review you approved',
      pattern: { regex: /^[0-9a-f]{64}$/, hint: 'Copy review_hash (64 lower-case hex digits) from `vaultgate review ID`.' },
    },
  ] as const,
  output: { operation_id: 'string', changed_paths: { array: 'string' }, proposal: { object: { id: 'string', state: 'string' } } },
  annotations: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
  async run(input, ctx) {
    const { apply } = await proposalsCore();
    const { engineSettingsFromEnv } = await import('../txn/index.js');
    return { ...(await apply(ctx.session(), input.id, input.review_hash, actorOf(ctx.env), engineSettingsFromEnv(ctx.env))) };
  },
  text: (r) => `${r.replayed ? 'already applied' : 'applied'} ${r.proposal.id} as ${r.operation_id}: ${r.changed_paths.join(', ')}`,
});

export const declineOp = defineOperation({
  name: 'decline',
  reviewed: true,
  command: 'decline',
  group: 'write',
  summary: 'Decline a proposal, saying why (it stays on record; `reopen` brings it back)',
  examples: ["vaultgate decline p-7 --reason 'keep the old wording'", "vaultgate decline p-7 --reason 'links the wrong note' --json"],
  params: [idArg, { name: 'reason', type: 'string', required: true, nonEmpty: true, placeholder: 'text', description: 'why, for the agent and the log' }] as const,
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  async run(input, ctx) {
    const { decline } = await proposalsCore();
    return { ...decline(ctx.session(), input.id, input.reason, actorOf(ctx.env)) };
  },
  text: (r) => `declined ${r.proposal.id}: ${r.proposal.reason}`,
});

export const reopenOp = defineOperation({
  name: 'reopen',
  reviewed: true,
  command: 'reopen',
  group: 'write',
  summary: 'Reopen a declined or undone proposal: it is reviewed again and becomes pending or blocked',
  examples: ['vaultgate reopen p-7', 'vaultgate reopen p-7 --json'],
  params: [idArg] as const,
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  async run(input, ctx) {
    const { reopen } = await proposalsCore();
    return { ...(await reopen(ctx.session(), input.id, actorOf(ctx.env))) };
  },
  text: (r) => reviewText(r),
});

export const rollbackOp = defineOperation({
  name: 'rollback',
  reviewed: true,
  command: 'rollback',
  group: 'write',
  summary: 'Propose the inverse of an applied proposal (writes nothing: review and apply it like any other)',
  description: 'Based on the bytes the apply wrote: if a file changed since, the rollback proposal is created but blocked, with the reason.',
  examples: ['vaultgate rollback p-7', 'vaultgate rollback p-7 --json'],
  params: [idArg] as const,
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  async run(input, ctx) {
    const { rollback } = await proposalsCore();
    return { ...(await rollback(ctx.session(), input.id, actorOf(ctx.env))) };
  },
  text: (r) => reviewText({ proposal: r.proposal, ...r.review }),
});

export const proposalsOp = defineOperation({
  name: 'proposals',
  reviewed: true,
  command: 'proposals',
  tool: 'list_proposals',
  group: 'write',
  summary: 'List proposals, newest first, with what blocks each',
  examples: ['vaultgate proposals --state open', 'vaultgate proposals --agent claude --limit 20', 'vaultgate proposals --match sourdough --offset 100'],
  params: [
    {
      name: 'state',
      type: 'enum',
      values: ['open', 'pending', 'blocked', 'applied', 'declined', 'recovery', 'undone'] as const,
      placeholder: 'state',
      description: 'only proposals in this state; open: pending or blocked (what waits for a person)',
    },
    { name: 'agent', type: 'string', placeholder: 'name', description: 'only proposals by this agent' },
    { name: 'match', type: 'string', placeholder: 'text', description: 'only proposals whose id, title, agent or a file path contains this text (case-insensitive)' },
    { name: 'limit', type: 'int', min: 1, max: 10_000, default: 100, placeholder: 'n', description: 'most proposals to list' },
    { name: 'offset', type: 'int', min: 0, max: 1_000_000_000, default: 0, placeholder: 'n', description: 'skip this many first (to page: total says how many match)' },
  ] as const,
  output: { total: 'integer', proposals: { array: { id: 'string', state: 'string', title: 'string', agent: 'string|null', files: 'array', blocking: { array: 'string' }, warnings: 'integer', review_hash: 'string|null' } } },
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  async run(input, ctx) {
    const { list, OPEN_STATES } = await proposalsCore();
    const states = input.state === undefined ? undefined : input.state === 'open' ? OPEN_STATES : [input.state];
    return {
      ...list(
        ctx.session(),
        { limit: input.limit, offset: input.offset, ...(states ? { states } : {}), ...(input.agent ? { agent: input.agent } : {}), ...(input.match ? { match: input.match } : {}) },
        actorOf(ctx.env),
      ),
    };
  },
  text: (r) =>
    r.proposals.length === 0
      ? 'no proposals'
      : r.proposals
          .map((p) => `${p.id.padEnd(6)} ${p.state.padEnd(8)} ${p.title}  (${p.agent ?? '-'}, ${p.files.length} file${p.files.length === 1 ? '' : 's'}${p.blocking.length ? `; blocked by ${p.blocking.join(', ')}` : ''})`)
          .join('\n'),
});

export const logOp = defineOperation({
  name: 'log',
  reviewed: true,
  command: 'log',
  group: 'write',
  summary: 'The audit log of proposals, newest first: proposed, reviewed, applied, declined, reopened, rolled back, recovery, undone',
  examples: ['vaultgate log --limit 20', 'vaultgate log --proposal p-7', 'vaultgate log --limit 50 --offset 50'],
  params: [
    { name: 'limit', type: 'int', min: 1, max: 100_000, default: 50, placeholder: 'n', description: 'most events to show' },
    { name: 'offset', type: 'int', min: 0, max: 1_000_000_000, default: 0, placeholder: 'n', description: 'skip this many of the newest first (to page: total says how many there are)' },
    { name: 'proposal', type: 'string', placeholder: 'id', description: 'only the events of this proposal', pattern: idArg.pattern },
  ] as const,
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  async run(input, ctx) {
    const { auditLog } = await proposalsCore();
    return { ...auditLog(ctx.session(), { limit: input.limit, offset: input.offset, ...(input.proposal ? { proposal: input.proposal } : {}) }) };
  },
  text: (r) => (r.events.length === 0 ? 'no events' : r.events.map((e) => `${e.at}  ${e.event.padEnd(11)} ${(e.proposal ?? '').padEnd(6)} ${e.actor}${e.operation_id && e.event === 'applied' ? `  ${e.operation_id}` : ''}`).join('\n')),
});
