import { VaultgateError } from '../errors.js';
import { findOperation, runOperation, errorReport, type Operation, type OpContext, type OpOutput, type Param } from '../ops/index.js';
import { BackgroundEmbedder } from '../wing/dense/index.js';
import { VaultSession } from '../session/index.js';
import { VERSION } from '../version.js';
import { ANSWER_PROMPT, answerPromptText, serverInstructions } from './agent-text.js';
import { DEFAULT_BUDGET_CHARS } from '../context/types.js';
import { fitOutput, type OutputLimitNote } from './output-limit.js';
import { forTool, hintForTool, lessHint, mcpTools, toolDefinition, windowParams, type McpTool, type ToolDefinition } from './tools.js';

/**
 * `vaultgate mcp`: the MCP stdio server. A thin face over the operation table
 * (DESIGN §2): every tool is an operation with a `tool` name, called through
 * `runOperation` with the same validation, the same JSON and the same errors as
 * the CLI. What is specific to MCP lives here and only here: the output limit,
 * resources and the prompt, the wire.
 *
 * Tools are served by our own `tools/list` and `tools/call` handlers on the
 * SDK's low-level `Server` rather than `McpServer.registerTool`: the latter
 * validates arguments with zod itself and answers a bad one with its own text
 * ("Input validation error …"), where an agent must get the CLI's
 * `{code: "USAGE", message, hint}` naming the param. The JSON Schemas clients
 * see are still built from the same params (tools.ts).
 *
 * One vault per server; the index stays open between calls (still refreshed
 * before every read). stdout is the protocol: nothing else is ever written
 * there (logs go to `log`, which the CLI points at stderr). The server ends
 * when stdin closes.
 */

export interface McpServerOptions {
  vault: string | undefined;
  env: Record<string, string | undefined>;
  cwd: string;
  /** Offer `apply`: the client's approval prompt is then the only person in the loop (the review hash comes from the agent's own `review`). */
  allowApply: boolean;
  /** The most characters a tool result may have (its structuredContent's JSON, and its text block — the same JSON — each). */
  maxOutputChars: number;
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  /** Diagnostics (stderr): never the protocol channel. */
  log: (line: string) => void;
}

export const DEFAULT_MAX_OUTPUT_CHARS = 20_000;
/** A window of a long note takes this share of the limit; the rest is its section list and fields. */
const WINDOW_SHARE = 0.6;
/** JSON-RPC error for an unknown resource (MCP spec). */
const RESOURCE_NOT_FOUND = -32002;

export interface CallResult {
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  [key: string]: unknown;
}

/**
 * Everything the server answers, without the SDK: tests and the web face's
 * parity checks can call it in process. `call` is `tools/call`.
 */
export class McpFace {
  readonly session: VaultSession;
  readonly tools: McpTool[];
  readonly #byName: Map<string, McpTool>;
  readonly #ctx: OpContext;
  readonly #max: number;
  #definitions: ToolDefinition[] | undefined;

  constructor(session: VaultSession, opts: Pick<McpServerOptions, 'env' | 'cwd' | 'allowApply' | 'maxOutputChars'>) {
    this.session = session;
    this.tools = mcpTools({ allowApply: opts.allowApply });
    this.#byName = new Map(this.tools.map((t) => [t.name, t]));
    this.#max = opts.maxOutputChars;
    this.#ctx = {
      face: 'mcp',
      // A file watcher keeps the open index fresh; each call first waits for the events in flight.
      settle: () => session.settle(),
      env: opts.env,
      cwd: opts.cwd,
      session: () => session,
      readStdin() {
        throw new VaultgateError('USAGE', 'standard input is the MCP protocol channel', { hint: 'Pass the content as an argument of the tool.' });
      },
    };
  }

  get env(): Record<string, string | undefined> {
    return this.#ctx.env;
  }

  definitions(): ToolDefinition[] {
    this.#definitions ??= this.tools.map(toolDefinition);
    return this.#definitions;
  }

  instructions(): string {
    return serverInstructions({ root: this.session.root, vault_id: this.session.identity().vault_id }, this.tools.map((t) => t.name));
  }

  /**
   * Run an operation as this face does, returning its document `{ok: true, …}`.
   * What the operation can bound itself is bounded from the output limit, so
   * that what does not fit is left out whole and listed in the data rather than
   * cut here: a note's window (`max_chars`, continued by `window.next_cursor`),
   * a context packet's evidence budget (`budget_chars`: sections that do not fit
   * are listed in `truncated`; only lowered, so a scenario's budget still holds
   * under the default limit).
   */
  async #run(op: Operation, args: Record<string, unknown>): Promise<{ doc: OpOutput & { ok: true } }> {
    const raw = { ...args };
    const share = Math.max(100, Math.floor(this.#max * WINDOW_SHARE));
    if (windowParams(op) && raw.max_chars === undefined) raw.max_chars = share;
    if (op.name === 'context' && raw.budget_chars === undefined && share < DEFAULT_BUDGET_CHARS) raw.budget_chars = share;
    const r = await runOperation(op, raw, 'api', this.#ctx);
    return { doc: { ok: true, ...r.output } };
  }

  /** `tools/call`: a result, never a thrown error (a bad argument is an `isError` result like any failure). */
  async call(name: string, args: unknown, log: (line: string) => void = () => {}): Promise<CallResult> {
    const tool = this.#byName.get(name);
    try {
      if (!tool) {
        throw new VaultgateError('USAGE', `unknown tool ${JSON.stringify(name)}`, { hint: `Tools: ${this.tools.map((t) => t.name).join(', ')}.` });
      }
      if (args !== undefined && (args === null || typeof args !== 'object' || Array.isArray(args))) {
        throw new VaultgateError('USAGE', 'arguments must be an object', { hint: 'Pass the tool arguments as a JSON object.' });
      }
      const { doc } = await this.#run(tool.op, (args ?? {}) as Record<string, unknown>);
      const fitted = fitOutput(doc, this.#max, lessHint(tool, this.#max));
      if (fitted.cut) continuation(fitted.doc, tool, (args ?? {}) as Record<string, unknown>);
      // The text block is the JSON itself (MCP: structured content is also returned as serialised JSON in a
      // text block), so a host that shows the model only text still gives it sha256, whole evidence and cursors.
      return { content: [{ type: 'text', text: JSON.stringify(fitted.doc) }], structuredContent: fitted.doc };
    } catch (e) {
      const report = errorReport(e);
      if (report.internal) log(`vaultgate mcp: ${name}: ${(e as Error)?.stack ?? String(e)}`);
      toolWording(report.error, tool);
      return { content: [{ type: 'text', text: JSON.stringify({ ok: false, error: report.error }) }], isError: true };
    }
  }

  /** Resource templates: a note by path; a proposal by id (when the proposals core is present). */
  resourceTemplates(): { uriTemplate: string; name: string; title: string; description: string; mimeType: string }[] {
    const out = [
      {
        uriTemplate: 'vaultgate://note/{+path}',
        name: 'note',
        title: 'A note of the vault',
        description: 'The note as `note` returns it: text, sha256 (the base for a proposal), lines, sections. A long note comes as a window; read on with the note tool and window.next_cursor.',
        mimeType: 'application/json',
      },
    ];
    if (proposalReader()) {
      out.push({
        uriTemplate: 'vaultgate://proposal/{id}',
        name: 'proposal',
        title: 'A proposal and its last review',
        description: 'The proposal (files, state) and its last review (checks, diff, review_hash), as `show` returns it.',
        mimeType: 'application/json',
      });
    }
    return out;
  }

  /** `resources/list`: the vault's notes, a page at a time. */
  async listResources(cursor: string | undefined): Promise<{ resources: { uri: string; name: string; mimeType: string }[]; nextCursor?: string }> {
    const PAGE = 500;
    const files = findOperation({ name: 'files' });
    if (!files) return { resources: [] };
    const { doc } = await this.#run(files, {});
    const notes = (doc.files as { path: string }[]).filter((f) => /\.md$/i.test(f.path));
    const start = cursor && /^\d+$/.test(cursor) ? Number(cursor) : 0;
    const page = notes.slice(start, start + PAGE);
    return {
      resources: page.map((f) => ({ uri: noteUri(f.path), name: f.path, mimeType: 'application/json' })),
      ...(start + PAGE < notes.length ? { nextCursor: String(start + PAGE) } : {}),
    };
  }

  /** `resources/read`; an unknown or unreadable resource is a protocol error carrying the CLI's error. */
  async readResource(uri: string): Promise<{ contents: { uri: string; mimeType: string; text: string }[] }> {
    const m = /^vaultgate:\/\/(note|proposal)\/(.+)$/.exec(uri);
    const op = m?.[1] === 'note' ? findOperation({ name: 'note' }) : m?.[1] === 'proposal' ? proposalReader() : undefined;
    if (!m || !op) throw resourceError(uri, new VaultgateError('NOT_FOUND', `no such resource ${uri}`, { hint: 'Resources: vaultgate://note/{path}, vaultgate://proposal/{id}.' }));
    let arg: string;
    try {
      arg = m[2]!.split('/').map(decodeURIComponent).join('/');
    } catch {
      throw resourceError(uri, new VaultgateError('USAGE', `${uri} is not a valid resource URI (bad percent-encoding)`));
    }
    try {
      const { doc } = await this.#run(op, m[1] === 'note' ? { path: arg } : { id: arg });
      const fitted = fitOutput(doc, this.#max, `Cut to the server's limit of ${this.#max} characters: use the ${m[1]} tool for the rest.`);
      return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(fitted.doc) }] };
    } catch (e) {
      throw resourceError(uri, e);
    }
  }

  prompts() {
    return [ANSWER_PROMPT];
  }

  getPrompt(name: string, args: Record<string, string> | undefined): { description: string; messages: { role: 'user'; content: { type: 'text'; text: string } }[] } {
    if (name !== ANSWER_PROMPT.name) throw protocolError(-32602, `unknown prompt ${JSON.stringify(name)}`, { code: 'USAGE', hint: `Prompts: ${ANSWER_PROMPT.name}.` });
    const question = args?.question;
    if (typeof question !== 'string' || question.trim() === '') throw protocolError(-32602, 'missing question', { code: 'USAGE', hint: 'Give the question argument.' });
    return { description: ANSWER_PROMPT.description, messages: [{ role: 'user', content: { type: 'text', text: answerPromptText(question, this.session.root, this.tools.map((t) => t.name)) } }] };
  }
}

/** The operation that reads a proposal without re-checking it (`show`), when the proposals core has landed. */
function proposalReader(): Operation | undefined {
  return findOperation({ name: 'show' });
}

export function noteUri(vaultPath: string): string {
  return `vaultgate://note/${vaultPath.split('/').map(encodeURIComponent).join('/')}`;
}

/** A JSON-RPC error the SDK sends as is (`code`, `message`, `data`). */
class ProtocolError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data: unknown,
  ) {
    super(message);
  }
}
function protocolError(code: number, message: string, data: unknown): ProtocolError {
  return new ProtocolError(code, message, data);
}
/**
 * A cut result of a tool that pages (`offset`: search, list_proposals) says
 * where the next page starts: `output_limit.next_offset`, when one list was cut.
 */
function continuation(doc: Record<string, unknown>, tool: McpTool, args: Record<string, unknown>): void {
  const note = doc.output_limit as OutputLimitNote | undefined;
  if (!note || !(tool.op.params as readonly Param[]).some((p) => p.name === 'offset')) return;
  const cut = Object.keys(note.omitted);
  const list = cut.length === 1 ? doc[cut[0]!] : undefined;
  if (!Array.isArray(list)) return;
  const from = typeof args.offset === 'number' ? args.offset : 0;
  note.next_offset = from + list.length;
}

/**
 * An error as a tool caller reads it: its hint names the tool's arguments and
 * tools, never CLI flags or commands (the core words hints for the CLI). The
 * message keeps the core's words, but a flag of the tool's own arguments is
 * named as the argument.
 */
function toolWording(error: { message: string; hint?: string }, tool: McpTool | undefined): void {
  if (typeof error.hint === 'string') error.hint = tool ? hintForTool(error.hint, tool) : forTool(error.hint);
  if (tool) error.message = hintForTool(error.message, tool, { message: true });
  else error.message = forTool(error.message);
}

function resourceError(uri: string, e: unknown): ProtocolError {
  const { error } = errorReport(e);
  toolWording(error, undefined);
  const code = error.code === 'NOT_FOUND' || error.code === 'NOTE_AMBIGUOUS' ? RESOURCE_NOT_FOUND : -32602;
  return protocolError(code, `${uri}: ${error.message}`, error);
}

/**
 * Run the server on stdio until stdin closes. Resolves with the exit code.
 * Opening the vault fails before the protocol starts (a typed error thrown to
 * the caller, which reports it on stderr).
 */
export async function runMcpServer(opts: McpServerOptions): Promise<number> {
  const session = VaultSession.open({ vault: opts.vault, env: opts.env, cwd: opts.cwd, keepIndexOpen: true, freshness: opts.env.VAULTGATE_FRESHNESS === 'walk' ? 'walk' : 'watch' });
  const face = new McpFace(session, { ...opts, env: { ...opts.env } });
  // New and changed sections get their vectors while the server is idle (search.embeddings, loopback providers only).
  const embedder = new BackgroundEmbedder(session, opts.env, { log: (l) => opts.log(`vaultgate mcp: ${l}`) });
  // Imported only here: the SDK costs ~165 ms of loading (dependencies.md §10).
  const [{ Server }, { StdioServerTransport }, types] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/server/stdio.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  const server = new Server(
    { name: 'vaultgate', title: 'vaultgate', version: VERSION },
    { capabilities: { tools: {}, resources: {}, prompts: {} }, instructions: face.instructions() },
  );
  // Requests still being answered when stdin closes are finished before the server closes.
  const inFlight = new Set<Promise<unknown>>();
  const wire = <T>(f: () => Promise<T> | T): Promise<T> => {
    // A ProtocolError goes out as is (the SDK sends an error's code, message and data).
    const p = Promise.resolve().then(f);
    const tracked = p.finally(() => inFlight.delete(tracked)).catch(() => {});
    inFlight.add(tracked);
    return p;
  };
  server.setRequestHandler(types.ListToolsRequestSchema, () => ({ tools: face.definitions() }) as never);
  server.setRequestHandler(types.CallToolRequestSchema, (req) => wire(() => face.call(req.params.name, req.params.arguments, opts.log)) as never);
  server.setRequestHandler(types.ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: face.resourceTemplates() }));
  server.setRequestHandler(types.ListResourcesRequestSchema, (req) => wire(() => face.listResources(req.params?.cursor)));
  server.setRequestHandler(types.ReadResourceRequestSchema, (req) => wire(() => face.readResource(req.params.uri)));
  server.setRequestHandler(types.ListPromptsRequestSchema, () => ({ prompts: face.prompts() as never }));
  server.setRequestHandler(types.GetPromptRequestSchema, (req) => wire(() => face.getPrompt(req.params.name, req.params.arguments)));

  server.onerror = (e) => opts.log(`vaultgate mcp: ${e.message}`);
  server.oninitialized = () => {
    // Proposals made through this server name the client as their agent unless VAULTGATE_AGENT says otherwise.
    const client = server.getClientVersion()?.name;
    if (client && !face.env.VAULTGATE_AGENT) face.env.VAULTGATE_AGENT = `mcp:${client}`;
    // Bring the index up to date now, so the first call does not pay for a cold index.
    setImmediate(() => {
      try {
        session.read(() => null);
      } catch (e) {
        opts.log(`vaultgate mcp: indexing failed: ${errorReport(e).error.message}`);
      }
    });
  };

  return new Promise<number>((resolve) => {
    let closed = false;
    const finish = () => {
      if (closed) return;
      closed = true;
      opts.stdin.removeListener('end', finish);
      opts.stdin.removeListener('close', finish);
      void Promise.all([...inFlight])
        .then(() => new Promise((r) => setImmediate(r)))
        .then(() => server.close())
        .then(() => embedder.close())
        .catch(() => {})
        .finally(() => {
          session.close();
          (opts.stdin as { destroy?: () => void }).destroy?.();
          resolve(0);
        });
    };
    opts.stdin.on('end', finish);
    opts.stdin.on('close', finish);
    const transport = new StdioServerTransport(opts.stdin as never, opts.stdout as never);
    transport.onclose = finish;
    server.connect(transport).catch((e: unknown) => {
      opts.log(`vaultgate mcp: ${(e as Error).message}`);
      finish();
    });
  });
}
