import fs from 'node:fs';
import path from 'node:path';
import { VaultgateError } from '../errors.js';
import type { ProposeInput } from '../proposals/index.js';
// the request language alone (no proposals core): the MCP schema and the `changes` description are built from its table
import { ACTIONS, actionFields, changeListZod, parseChangeList, resolveSources, type ChangeAction, type ChangeRequest } from '../proposals/requests.js';
import { defineOperation, type OpContext } from './operation.js';
import { decodeUtf8Arg, readFileArg } from './read-bounded.js';
import { actorOf, agentName } from './settings.js';
import { REVIEW, proposalsCore, reviewText } from './proposal-output.js';

/**
 * `propose` (docs/proposals.md): calls the proposals core and shapes nothing but
 * input. Reading a `--content-file`, `--stdin` or a `--changes` file is the CLI's
 * way of sending what MCP and the web API send inline: the list of change
 * requests (`changes`).
 */

/** Largest text one proposal input may carry: the engine's per-operation limit (each file's is checked by the core). */
async function maxInputBytes(): Promise<number> {
  return (await import('../txn/index.js')).MAX_OPERATION_BYTES;
}

function decodeText(bytes: Buffer, what: string): string {
  return decodeUtf8Arg(bytes, { what, hint: 'Proposals carry text; save it as UTF-8.', keepBom: true });
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

/**
 * `changes`, the list itself (MCP, web API): its description is built from the
 * action table, one short entry per action, since every byte of `tools/list` is
 * in the model's context before its first call.
 */
const fieldList = (a: ChangeAction) => {
  const f = actionFields(a).filter((k) => k !== 'path' && k !== 'base');
  return f.length === 0 ? '' : ` {${f.join(', ')}}`;
};

const changesParam = {
  name: 'changes',
  type: 'json',
  mcpOnly: true,
  required: true,
  schema: () => changeListZod(),
  description:
    'each {action, path, base}; base: the sha256 you read, "none" for a new note or a folder. ' +
    (Object.keys(ACTIONS) as ChangeAction[]).map((a) => `${a}${fieldList(a)}${ACTIONS[a].doc ? ` (${ACTIONS[a].doc})` : ''}`).join('; ') +
    '. Edits of one note compose in list order',
} as const;

export const proposeOp = defineOperation({
  name: 'propose',
  reviewed: true,
  command: 'propose',
  tool: 'propose',
  group: 'write',
  summary: 'Propose a change to the vault (writes nothing into it): a list of change requests, reviewed at once',
  description:
    'Each request becomes an exact change against the version you read (its base: the sha256 `note` gave); the answer says pending or blocked, and why. ' +
    'A person applies it. A stale base stores nothing (exit 75): read again, propose again.',
  examples: [
    'vaultgate propose Notes/Idea.md --content-file idea.md --base <sha256> --title "Expand the idea"',
    'vaultgate propose Notes/Idea.md --replace "teh" --with "the" --base <sha256>',
    'vaultgate propose Notes/Idea.md --append-to-section "Open questions" --content-file q.md --base <sha256>',
    'vaultgate propose --move Inbox/draft.md Notes/Draft.md --base <sha256>',
    'vaultgate propose --rename Notes/Draft.md "Final plan" --base <sha256>',
    'vaultgate propose --move Projects/Old/ Archive/Old/',
    'vaultgate propose --rename-heading Notes/Plan.md "Open questions" "Questions" --base <sha256>',
    `vaultgate propose --changes changes.json --agent claude   # {"title": "…", "changes": [{"action": "replace", "path": "Notes/Idea.md", "base": "<sha256>", "replace": "teh", "with": "the"}]}`,
    'vaultgate propose --capture inbox/article.html --type capture',
  ],
  params: [
    { name: 'path', type: 'string', positional: true, required: false, cliOnly: true, description: 'the note (for --move and --rename: the file or folder to move)' },
    { name: 'to', type: 'string', positional: true, required: false, cliOnly: true, description: 'for --move: the destination (a folder path ending in / keeps the name); for --rename: the new name; for --rename-heading: the heading to rename ("Heading > Sub")' },
    { name: 'new_heading', type: 'string', positional: true, required: false, cliOnly: true, description: 'for --rename-heading: the heading’s new text' },
    { name: 'base', type: 'string', placeholder: 'sha256|none', cliOnly: true, description: 'SHA-256 of the version you read (`note` and `search` print it); `none` for a new note', pattern: { regex: /^([0-9a-f]{64}|none)$/, hint: 'Give the 64-hex sha256 printed by `vaultgate note PATH`, or `none` for a new note.' } },
    { name: 'content', type: 'string', placeholder: 'text', cliOnly: true, description: 'the text, inline: the note’s full new text, or the section/append text' },
    { name: 'content_file', type: 'string', placeholder: 'file', cliOnly: true, description: 'the text, from this file' },
    { name: 'stdin', type: 'boolean', cliOnly: true, description: 'the text, from stdin' },
    { name: 'delete', type: 'boolean', cliOnly: true, description: 'delete PATH' },
    { name: 'move', type: 'boolean', cliOnly: true, description: 'move PATH (a file, or a folder and everything in it) to TO; every link to what moves is rewritten to follow it, in the same proposal' },
    { name: 'rename', type: 'boolean', cliOnly: true, description: 'rename PATH (a file or folder) to the name TO in the same folder (a note keeps .md); links follow' },
    { name: 'rename_heading', type: 'boolean', cliOnly: true, description: 'rename the heading TO of note PATH to NEW_HEADING; links to it follow' },
    { name: 'replace', type: 'string', placeholder: 'old', cliOnly: true, description: 'replace this exact text, which must occur exactly once, with --with' },
    { name: 'with', type: 'string', placeholder: 'new', cliOnly: true, description: 'the text that replaces --replace (may be empty)' },
    { name: 'section', type: 'string', placeholder: 'heading', cliOnly: true, description: 'replace the body of this section ("Heading > Sub") with the text' },
    { name: 'append', type: 'boolean', cliOnly: true, description: 'append the text to the end of the note' },
    { name: 'append_file', type: 'string', placeholder: 'file', cliOnly: true, description: 'append this file’s text to the end of the note' },
    { name: 'append_to_section', type: 'string', placeholder: 'heading', cliOnly: true, description: 'append the text at the end of this section ("Heading > Sub")' },
    { name: 'capture', type: 'string', placeholder: 'file', cliOnly: true, description: 'store this file’s exact bytes at .raw/captured/<sha256>.<ext> (a path in the working folder, else in the vault)' },
    {
      name: 'changes',
      type: 'string',
      placeholder: 'file.json',
      cliOnly: true,
      description:
        'the list of change requests (the flags above build one): a JSON document {"title", "summary"?, "type"?, "changes": [...]} (- for stdin; docs/json.md); each request is {"action", "path", "base", …}: ' +
        (Object.keys(ACTIONS) as ChangeAction[]).map((a) => `${a} {${actionFields(a).filter((k) => k !== 'path' && k !== 'base').join(', ')}}`).join('; ') +
        '; base is the sha256 you read, or "none" for a new note or a folder',
    },
    changesParam,
    { name: 'type', type: 'string', placeholder: 'type', description: 'operation type whose scope every path must stay in (default generic); out of scope is refused' },
    { name: 'title', type: 'string', placeholder: 'text', cliOnly: true, description: 'one line saying what the change is for (default: what it does)' },
    { name: 'title', type: 'string', mcpOnly: true, required: true, description: 'one line: what the change is for' },
    { name: 'summary', type: 'string', placeholder: 'text', description: 'why, for the person who reviews it' },
    { name: 'agent', type: 'string', placeholder: 'name', cliOnly: true, description: 'who proposes (default: VAULTGATE_AGENT)' },
    { name: 'session', type: 'string', placeholder: 'id', cliOnly: true, description: 'the agent’s session id, to group its proposals' },
    { name: 'scenario', type: 'string', placeholder: 'name', description: 'the scenario whose write rules apply' },
    { name: 'allow_shrink', type: 'boolean', description: 'it removes over half of a note on purpose' },
    { name: 'allow_relink', type: 'boolean', description: 'existing links may change target (warn, not block)' },
    { name: 'allow_broken_links', type: 'boolean', description: 'links to a deleted note may dangle (warn, not block)' },
  ] as const,
  output: { proposal: { object: { id: 'string', state: 'string', title: 'string', files: 'array' } }, review: { object: REVIEW } },
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  run: async function runPropose(input, ctx) {
    const { propose, parseChangesDocument, parseChangeListText } = await proposalsCore();
    const session = ctx.session();
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
    const typed = input.type === undefined ? {} : { type: input.type };
    if (ctx.face !== 'cli') {
      // MCP and the web API send the list itself (or, from some clients, its JSON text)
      // a capture's source is a vault path here (sourceResolver)
      const changes = resolveSources(typeof input.changes === 'string' ? parseChangeListText(input.changes) : parseChangeList(input.changes), sourceResolver(ctx));
      return { ...(await propose(session, { ...common, ...typed, ...(input.title === undefined ? {} : { title: input.title }), changes }, actorOf(ctx.env, agent), { locate: true })) };
    }
    if (input.changes !== undefined && input.capture !== undefined) throw usage('give one form of change, not --capture and --changes');
    if (input.changes !== undefined || input.capture !== undefined) {
      const cliForms = ['path', 'base', 'content', 'content_file', 'with', 'replace', 'section', 'append_to_section', 'append_file'] as const;
      const flags = ['delete', 'move', 'rename', 'rename_heading', 'append', 'stdin'] as const;
      if (input.capture !== undefined) {
        if (cliForms.some((k) => input[k] !== undefined) || flags.some((k) => input[k])) throw usage('--capture takes only the file to capture: `vaultgate propose --capture FILE`');
        const request: ProposeInput = { ...common, ...typed, ...(input.title === undefined ? {} : { title: input.title }), changes: [{ action: 'capture', source: sourceResolver(ctx)(input.capture) }] };
        return { ...(await propose(session, request, actorOf(ctx.env, agent))) };
      }
      if (cliForms.some((k) => input[k] !== undefined) || flags.some((k) => input[k])) throw usage('--changes takes every request (path, base, text) from its JSON document: give no other form of change');
      if (input.title !== undefined || input.summary !== undefined) throw usage('--changes takes its title and summary from the JSON document');
      const file = input.changes as string;
      const doc = parseChangesDocument(await readInputFile(ctx, file, '--changes'), file === '-' ? 'stdin' : file, sourceResolver(ctx));
      if (input.type !== undefined && doc.type !== undefined && input.type !== doc.type) throw usage(`--type ${input.type} and the document's "type": ${JSON.stringify(doc.type)} differ; give one`);
      const type = input.type ?? doc.type;
      const request: ProposeInput = { ...common, title: doc.title, ...(doc.summary === undefined ? {} : { summary: doc.summary }), ...(type === undefined ? {} : { type }), changes: doc.changes };
      return { ...(await propose(session, request, actorOf(ctx.env, agent), { locate: true })) };
    }
    const change = await requestFromFlags(ctx, input);
    return { ...(await propose(session, { ...common, ...typed, ...(input.title === undefined ? {} : { title: input.title }), changes: [change] }, actorOf(ctx.env, agent))) };
  },
  text: (r) =>
    [
      ...(r.captures ?? []).map((c) => `${c.existing ? 'already captured' : 'captures'} ${c.source} as ${c.path}${c.existing ? ' (not part of this proposal)' : ''}`),
      reviewText({ proposal: r.proposal, ...r.review }),
    ].join('\n'),
});

interface FlagInput extends ContentSources {
  path: string | undefined;
  to: string | undefined;
  new_heading: string | undefined;
  base: string | undefined;
  delete: boolean;
  move: boolean;
  rename: boolean;
  rename_heading: boolean;
  replace: string | undefined;
  with: string | undefined;
  section: string | undefined;
  append: boolean;
  append_file: string | undefined;
  append_to_section: string | undefined;
}

/** The CLI's flags are sugar: they build the one change request they name. */
async function requestFromFlags(ctx: OpContext, input: FlagInput): Promise<ChangeRequest> {
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
    ] as const
  ).filter(([, on]) => on).map(([f]) => f);
  if (forms.length > 1) throw usage(`give one form of change, not ${forms.join(' and ')}`);
  const form = forms[0] ?? 'full text';
  const hasContent = input.content !== undefined || input.content_file !== undefined || input.stdin;
  if (input.path === undefined) throw usage(`${form === 'full text' ? 'a change' : form} needs PATH`);
  const moving = form === '--move' || form === '--rename';
  if (input.to !== undefined && !moving && form !== '--rename-heading') throw usage(`only --move, --rename and --rename-heading take a second argument (got ${JSON.stringify(input.to)})`);
  if (input.new_heading !== undefined && form !== '--rename-heading') throw usage(`only --rename-heading takes a third argument (got ${JSON.stringify(input.new_heading)})`);
  if (moving) {
    // a folder has no sha256: a folder move pins each file's hash as read now
    if (hasContent || input.with !== undefined) throw usage(`${form} takes no text`);
    if (input.to === undefined) throw usage(form === '--move' ? '--move needs FROM and TO: `vaultgate propose --move FROM TO --base <sha256>`' : '--rename needs PATH and NEWNAME: `vaultgate propose --rename PATH NEWNAME --base <sha256>`');
    if (input.base === 'none') throw usage(`--base none means a new note; ${form} needs the existing file’s sha256`);
    return { action: form === '--move' ? 'move' : 'rename', path: input.path, to: input.to, base: input.base ?? null };
  }
  if (input.base === undefined) throw usage('give --base: the sha256 of the version you read (`vaultgate note PATH`), or `none` for a new note', 'The base is how vaultgate knows your change is not made on an outdated copy.');
  if (input.with !== undefined && form !== '--replace') throw usage('--with goes with --replace');
  const base = input.base === 'none' ? null : input.base;
  if (base === null && form !== 'full text') throw usage(`--base none means a new note; ${form} needs the existing note’s sha256`);
  const b = base as string;
  switch (form) {
    case '--delete':
      if (hasContent) throw usage(`${form} takes no text`);
      return { action: 'delete', path: input.path, base: b };
    case '--rename-heading':
      if (hasContent || input.with !== undefined) throw usage('--rename-heading takes no text: `vaultgate propose --rename-heading NOTE "Old" "New" --base <sha256>`');
      if (input.to === undefined || input.new_heading === undefined) throw usage('--rename-heading needs NOTE, the heading and its new text: `vaultgate propose --rename-heading NOTE "Old" "New" --base <sha256>`');
      return { action: 'rename_heading', path: input.path, heading: input.to, to: input.new_heading, base: b };
    case '--replace':
      if (hasContent) throw usage('--replace takes its new text from --with');
      if (input.with === undefined) throw usage('--replace needs --with (the new text; may be empty)');
      if (input.replace === '') throw usage('--replace needs the text to replace', 'Give the exact text as it is in the note (`vaultgate note PATH` shows it).');
      return { action: 'replace', path: input.path, replace: input.replace!, with: input.with, base: b };
    case '--append-file':
      if (hasContent) throw usage('--append-file is the text; give no other');
      return { action: 'append', path: input.path, content: await readInputFile(ctx, input.append_file!, '--append-file'), base: b };
  }
  const content = await contentOf(ctx, input, form);
  switch (form) {
    case '--section':
      return { action: 'section', path: input.path, heading: input.section!, content, base: b };
    case '--append':
      return { action: 'append', path: input.path, content, base: b };
    case '--append-to-section':
      return { action: 'append', path: input.path, heading: input.append_to_section!, content, base: b };
    default:
      return { action: 'write', path: input.path, content, base };
  }
}
