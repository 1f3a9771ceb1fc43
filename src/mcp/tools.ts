import { loadZod } from '../lazy-require.js';
import { OPERATIONS, inputZodShape, outputZodSchema, type Operation, type Param } from '../ops/index.js';

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

/** A JSON Schema (draft-07, what MCP clients validate with) without zod's integer-range noise. */
function jsonSchema(schema: import('zod').ZodType, io: 'input' | 'output'): JsonSchema {
  const { z } = loadZod();
  const out = z.toJSONSchema(schema, { target: 'draft-7', io, unrepresentable: 'any' }) as JsonSchema;
  delete out.$schema;
  return JSON.parse(JSON.stringify(out), (key, value) => {
    if ((key === 'minimum' && value === Number.MIN_SAFE_INTEGER) || (key === 'maximum' && value === Number.MAX_SAFE_INTEGER)) return undefined;
    return value;
  }) as JsonSchema;
}

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  annotations: { title: string; readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
}

/**
 * `tools/list` entry of one tool: the params as a strict object (unknown
 * arguments refused, as the CLI refuses unknown flags), the documented output
 * as an open object, and the operation's annotations.
 */
export function toolDefinition(tool: McpTool): ToolDefinition {
  const { z } = loadZod();
  const { op } = tool;
  const description = [op.summary + '.', op.description, `CLI: \`vaultgate ${op.command}\` (same JSON).`].filter(Boolean).join(' ');
  return {
    name: tool.name,
    title: op.summary,
    description,
    inputSchema: jsonSchema(z.strictObject(inputZodShape(op.params as readonly Param[])), 'input'),
    outputSchema: jsonSchema(outputZodSchema(op.output), 'output'),
    annotations: {
      title: op.summary,
      readOnlyHint: op.annotations.readOnly,
      destructiveHint: op.annotations.destructive,
      idempotentHint: op.annotations.idempotent,
      openWorldHint: op.annotations.openWorld,
    },
  };
}

/** How to ask a tool for less, for the `output_limit` hint. */
export function lessHint(tool: McpTool, maxChars: number): string {
  const names = new Set((tool.op.params as readonly Param[]).map((p) => p.name));
  const ways: string[] = [];
  if (names.has('cursor')) ways.push('read on with window.next_cursor, or ask for one section (heading)');
  if (names.has('limit')) ways.push('lower `limit` or narrow the query' + (names.has('path') ? ' (path, tag, where)' : ''));
  if (names.has('budget_chars')) ways.push('lower `budget_chars`');
  const ask = ways.length ? ways.join('; ') : `run \`vaultgate ${tool.op.command} --json\` for the whole result`;
  return `Cut to the server's limit of ${maxChars} characters (vaultgate mcp --max-output-chars). To get the rest: ${ask}.`;
}

/**
 * A hint as an MCP client can follow it. Operations word their hints for the
 * CLI (`--base`, `vaultgate propose --help`); a hint must name a step that
 * exists where the call came from (issue 20), so over MCP a flag of the tool's
 * own arguments becomes that argument's name, and `--help` the tool's input
 * schema. A hint built on a CLI-only input (`--content-file`, `--stdin`) is
 * replaced by the list of the tool's arguments.
 */
export function hintForTool(hint: string, tool: McpTool): string {
  const params = tool.op.params as readonly Param[];
  const flag = (p: Param) => `--${p.name.replace(/_/g, '-')}`;
  const cliOnly = params.filter((p) => p.cliOnly).map(flag);
  const named = (f: string) => new RegExp(`(?<![\\w-])${f}(?![\\w-])`).test(hint);
  if (cliOnly.some(named)) {
    return `See the \`${tool.name}\` tool's input schema; its arguments: ${params.filter((p) => !p.cliOnly).map((p) => p.name).join(', ')}.`;
  }
  let out = hint.replace(/`vaultgate [^`]*--help`/g, `the \`${tool.name}\` tool's input schema`);
  for (const p of params) if (!p.cliOnly) out = out.replace(new RegExp(`(?<![\\w-])${flag(p)}(?![\\w-])`, 'g'), `\`${p.name}\``);
  return out.replace(/``/g, '`');
}
