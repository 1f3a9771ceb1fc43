import { OPERATIONS, findOperation, isRequired, type Operation, type Param } from '../ops/index.js';
import { loadZod } from '../lazy-require.js';

/**
 * Which operations the MCP server offers, and their tool definitions — all
 * derived from the operation table, so a new operation with a `tool` name is
 * a new tool with no code here.
 *
 * No tool writes into the vault: the table gives a tool name only to reads and
 * to proposals (which write nothing into the vault). `apply` has no tool name;
 * it is offered only when the server was started with `--allow-apply`. It needs
 * a review hash, but the agent gets one from its own `review` call: with
 * --allow-apply the client's approval prompt is the only person in the loop,
 * and the tool's description says so.
 */

export interface McpTool {
  name: string;
  op: Operation;
}

/** The operation offered as a tool only on `--allow-apply`, and the name it gets. */
export const APPLY_OPERATION = 'apply';

export function mcpTools(opts: { allowApply: boolean }): McpTool[] {
  const tools: McpTool[] = [];
  for (const op of OPERATIONS) {
    if (op.tool) tools.push({ name: op.tool, op });
    else if (opts.allowApply && op.name === APPLY_OPERATION) tools.push({ name: APPLY_OPERATION, op });
  }
  return tools;
}

/** Params a window-able operation takes: the face fills `max_chars` from its output limit when the caller did not. */
export function windowParams(op: Operation): boolean {
  const names = new Set((op.params as readonly Param[]).map((p) => p.name));
  return names.has('max_chars') && names.has('cursor');
}

type JsonSchema = Record<string, unknown>;

export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  annotations: { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };
}

/**
 * `tools/list` entry of one tool, sized for a model's context (issue 21 §2:
 * the default set ≤ 12,000 characters of compact JSON; a model reads it before
 * its first call):
 *
 * - the description is the operation's MCP wording (`toolDescription`, else its
 *   summary and description through {@link forTool}), naming the result
 *   fields a caller needs (sha256, next_cursor, review_hash); the rest of the
 *   JSON names itself;
 * - the input schema is written from the params directly (a strict object:
 *   unknown arguments are refused, as the CLI refuses unknown flags); bounds are
 *   left to the server, whose USAGE error names the argument and its range;
 * - no output schema: every result is self-describing JSON (its text block is
 *   that JSON too), and a schema cost as much as the inputs did. The documented
 *   fields still bind the JSON: test/unit/mcp/tools.test.ts checks the goldens
 *   against them.
 */
export function toolDefinition(tool: McpTool): ToolDefinition {
  const { op } = tool;
  const params = (op.params as readonly Param[]).filter((p) => !p.cliOnly);
  const properties: Record<string, JsonSchema> = {};
  for (const p of params) properties[p.name] = paramSchema(p);
  const required = params.filter((p) => isRequired(p) && !('default' in p && p.default !== undefined)).map((p) => p.name);
  const about = op.toolDescription ?? forTool([op.summary + '.', op.description].filter(Boolean).join(' '));
  return {
    name: tool.name,
    description: (tool.name === APPLY_OPERATION ? APPLY_WARNING + ' ' : '') + about,
    inputSchema: { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false },
    annotations: annotationsOf(op),
  };
}

/**
 * The operation's hints, minus what a client assumes anyway (MCP: readOnlyHint
 * false, idempotentHint false, openWorldHint true; the destructive and
 * idempotent hints mean nothing for a read-only tool).
 */
function annotationsOf(op: Operation): ToolDefinition['annotations'] {
  const a = op.annotations;
  const out: ToolDefinition['annotations'] = {};
  if (a.readOnly) out.readOnlyHint = true;
  else {
    // said either way: a client's approval prompt reads it (apply: true)
    out.destructiveHint = a.destructive;
    if (a.idempotent) out.idempotentHint = true;
  }
  if (!a.openWorld) out.openWorldHint = false;
  return out;
}

/** What the apply tool says first: with it, nobody but the client's approval prompt stands between the agent and the vault. */
export const APPLY_WARNING =
  'Writes the vault. With this tool offered (the server was started with allow-apply), the MCP client\'s approval prompt for this call is the only person in the loop: the review_hash comes from your own `review` call and proves nothing about a person. Call it only when the person has read this proposal\'s diff and told you to apply it.';

function paramSchema(p: Param): JsonSchema {
  const dflt = 'default' in p && p.default !== undefined ? ` (default ${JSON.stringify(p.default)})` : '';
  const description = (p.toolDescription ?? forTool(p.description)) + dflt;
  switch (p.type) {
    case 'string':
      // a JSON document as an object, or its text
      return p.jsonText ? { type: ['object', 'array', 'string'], description } : { type: 'string', description };
    case 'int':
      return { type: 'integer', description };
    case 'number':
      return { type: 'number', description };
    case 'boolean':
      return { type: 'boolean', description };
    case 'enum':
      return { type: 'string', enum: [...p.values], description };
    case 'strings':
      return { type: 'array', items: { type: 'string' }, description };
    case 'json':
      // a value the operation parses itself (the change-request list): its schema as zod states it
      return { ...zodJsonSchema(p.schema()), description };
  }
}

/** A zod schema as draft-07 JSON Schema (what MCP clients validate with), without zod's `$schema` line. */
function zodJsonSchema(schema: import('zod').ZodType): JsonSchema {
  const { z } = loadZod();
  const out = z.toJSONSchema(schema, { target: 'draft-7', io: 'input', unrepresentable: 'any' }) as JsonSchema;
  delete out.$schema;
  return out;
}

/** How to ask a tool for less, for the `output_limit` hint. */
export function lessHint(tool: McpTool, maxChars: number): string {
  const names = new Set((tool.op.params as readonly Param[]).filter((p) => !p.cliOnly).map((p) => p.name));
  const ways: string[] = [];
  if (names.has('cursor')) ways.push('read on with window.next_cursor, or ask for one section (heading)');
  if (names.has('limit')) ways.push('lower `limit` or narrow the query' + (names.has('path') ? ' (path, tag, where)' : ''));
  if (names.has('offset')) ways.push('page on with offset = next_offset');
  if (names.has('budget_chars')) ways.push('lower `budget_chars`');
  const ask = ways.length ? ways.join('; ') : 'ask the person for the whole result';
  return `Cut to the server's limit of ${maxChars} characters. To get the rest: ${ask}.`;
}

/**
 * CLI wording as a tool caller reads it (issue 21 §2: the MCP face names tool
 * arguments and tools, never flags or shell commands). Operations word their
 * help and hints for the CLI; this renders them for MCP from the operation
 * table:
 *
 * - `` `vaultgate VERB …` `` (a command line) becomes the tool that does it
 *   (`` the `note` tool ``), or, for a verb with no tool, the person's command
 *   (`` the person's `apply` ``): a step the caller can take or ask for;
 * - `--some-flag` becomes the argument `some_flag`; `-` alone and `--` stay;
 * - "exits 75" becomes what the failure means (a tool call has no exit status).
 */
export function forTool(text: string): string {
  return text
    .replace(/`vaultgate ([a-z][a-z-]*(?: [a-z][a-z-]*)?)(?:[^`]*)`/g, (m, words: string) => verbRef(words) ?? m)
    .replace(/\bvaultgate ([a-z][a-z-]*)(?: ([a-z][a-z-]*))?/g, (m, first: string, second: string | undefined) => verbRef(second ? `${first} ${second}` : first, m) ?? m)
    .replace(/(?<![\w-])--([a-z][a-z0-9-]*)/g, (_m, flag: string) => flag.replace(/-/g, '_'))
    // a tool call has no exit status: the error's code says the class (docs/errors.md)
    .replace(/\bexits? (\d+)/g, (_m, code: string) => (code === '75' ? 'fails (a conflict: re-read)' : code === '77' ? 'is refused (not permitted)' : 'fails'))
    .replace(/\(same JSON\)/g, '');
}

/** What a `vaultgate VERB` names, for a tool caller; undefined when it names no verb (`vaultgate serves…`). */
function verbRef(words: string, whole?: string): string | undefined {
  const [first, second] = words.split(' ');
  const two = second ? findOperation({ command: `${first} ${second}` }) : undefined;
  const op = two ?? findOperation({ command: first! });
  // the unbackticked form matched a second word that is not part of the verb: keep it
  const rest = whole !== undefined && !two && second ? ` ${second}` : '';
  if (op) return (op.tool ? `the \`${op.tool}\` tool` : `the person's \`${op.command}\``) + rest;
  if (FACE_VERBS.includes(first!)) return `the person's \`${first}\` command` + rest;
  return undefined;
}

/** Verbs that serve the table rather than being operations of it (src/cli/face-verbs.ts). */
const FACE_VERBS = ['mcp', 'serve', 'inbox'];

/**
 * A hint as an MCP client can follow it. Operations word their hints for the
 * CLI (`--base`, `vaultgate propose --help`); a hint must name a step that
 * exists where the call came from (issue 20), so over MCP a flag of the tool's
 * own arguments becomes that argument's name, and `--help` the tool's input
 * schema. A hint built on a CLI-only input (`--content-file`, `--stdin`) is
 * replaced by the list of the tool's arguments.
 */
export function hintForTool(hint: string, tool: McpTool, opts: { message?: boolean } = {}): string {
  const params = tool.op.params as readonly Param[];
  const flag = (p: Param) => `--${p.name.replace(/_/g, '-')}`;
  const cliOnly = params.filter((p) => p.cliOnly).map(flag);
  const named = (f: string) => new RegExp(`(?<![\\w-])${f}(?![\\w-])`).test(hint);
  if (!opts.message && cliOnly.some(named)) {
    return `See the \`${tool.name}\` tool's input schema; its arguments: ${params.filter((p) => !p.cliOnly).map((p) => p.name).join(', ')}.`;
  }
  let out = hint.replace(new RegExp(`\`vaultgate ${tool.op.command} --help\``, 'g'), `the \`${tool.name}\` tool's input schema`).replace(/`vaultgate <command> --help`/g, `the \`${tool.name}\` tool's input schema`);
  for (const p of params) if (!p.cliOnly) out = out.replace(new RegExp(`(?<![\\w-])${flag(p)}(?![\\w-])`, 'g'), `\`${p.name}\``);
  return forTool(out).replace(/``/g, '`');
}
