import type { VaultSession } from '../session/index.js';
import type { OutputFields } from './output.js';
import type { InputOf, Param } from './params.js';

type Env = Record<string, string | undefined>;

/** Progress of a long step (indexing), for a face to show on a terminal. */
export interface Progress {
  phase: string;
  done: number;
  total: number;
}

/**
 * What an operation may use besides its input. Faces build it: the CLI per
 * process, the MCP server and the inboxes once (with a long-lived session).
 */
export interface OpContext {
  /** The vault session; selected on first call, so an operation that needs no vault never selects one. */
  session(): VaultSession;
  env: Env;
  /** Where relative file arguments (`--content-file`, a bundle path) are resolved. */
  cwd: string;
  /** The standard input, read whole up to `limit` bytes (CLI `-`/`--stdin`); faces without one throw USAGE. */
  readStdin(limit: number): Buffer;
  /** Reports progress of long steps when the face can show it (a terminal's stderr), else undefined. */
  progress?: (p: Progress) => void;
  /**
   * Ask the person a yes/no question on their terminal (the CLI in its own
   * process: /dev/tty, with stdin a terminal). Answers whether they typed yes,
   * or null when there is no terminal to ask on. Absent on every other face:
   * the MCP server, the daemon and the web server have no person at a terminal.
   */
  confirm?: (question: string) => boolean | null;
  /** Which face runs the operation (`terminal`: the terminal inbox). */
  face: 'cli' | 'mcp' | 'web' | 'terminal';
  /**
   * A long-lived face whose session watches the vault (`freshness: 'watch'`)
   * sets this to `() => session.settle()`: runOperation awaits it before every
   * operation, so a read sees every change made before the request arrived.
   */
  settle?: () => Promise<void>;
}

/** MCP tool annotations (hints to clients; the server enforces nothing by them). */
export interface OpAnnotations {
  readOnly: boolean;
  destructive: boolean;
  idempotent: boolean;
  openWorld: boolean;
}

/** The JSON body an operation returns: the documented output (docs/json.md), without the `ok` envelope. */
export type OpOutput = Record<string, unknown>;

/**
 * One operation of vaultgate, as a value: the single definition every face
 * registers (DESIGN §2: faces hold no logic). `params` is the input schema;
 * `run` calls the core and returns the documented JSON; `text` renders it for
 * a terminal; `document` is a requested document printed as is (push mode).
 */
export interface Operation<Ps extends readonly Param[] = readonly Param[], Out extends OpOutput = OpOutput> {
  /** Stable snake_case id (`search`, `tx_inspect`). */
  readonly name: string;
  /** CLI words (`search`, `tx inspect`). */
  readonly command: string;
  /** MCP tool name, when the operation is offered to MCP clients. */
  readonly tool?: string;
  /** Help ordering: reads first, then writes, then maintenance. */
  readonly group: 'read' | 'write' | 'admin';
  /** One line. */
  readonly summary: string;
  /** More help: what it does, what it never does. */
  readonly description?: string;
  /**
   * The MCP tool's description, when the CLI's summary and description speak
   * of flags and commands a tool caller does not have (issue 21 §2): what a
   * model needs to choose the tool and call it right, in argument names.
   */
  readonly toolDescription?: string;
  /** Two or three command lines people can copy. */
  readonly examples: readonly string[];
  readonly params: Ps;
  /**
   * The documented fields of the JSON `run` returns (docs/json.md), as data:
   * the MCP tool's output schema. Every operation offered as a tool has one.
   */
  readonly output?: OutputFields;
  readonly annotations: OpAnnotations;
  /** Alternative CLI names. */
  readonly aliases?: readonly string[];
  run(input: InputOf<Ps>, ctx: OpContext): Promise<Out> | Out;
  text?(out: Out, input: InputOf<Ps>): string;
  /**
   * The rendering shows text an agent wrote that a person decides on (a diff, a
   * title, paths): every line goes through src/visible-text.ts, so a bidi
   * override or a zero-width character is shown as `<U+202E>`, never drawn live.
   */
  readonly reviewed?: boolean;
  /** A document the user asked for by format: printed as is even when piped; `--json` wraps it. */
  document?(out: Out, input: InputOf<Ps>): string | undefined;
  /** A non-zero exit for a successful-but-not-clean outcome. */
  exitCode?(out: Out, input: InputOf<Ps>): number;
}

/**
 * Type helper: infers the input type from the params list (write `params: [...] as const`).
 * Every operation is one literal of this shape, so neighbouring definitions look
 * alike to `duplicates` (name, command, group, summary, examples, params…): the
 * repeat is the table being data, deliberate.
 */
export function defineOperation<const Ps extends readonly Param[], Out extends OpOutput>(op: Operation<Ps, Out>): Operation<Ps, Out> {
  return op;
}

/** Annotations of a read that never changes anything. */
export const READ_ONLY: OpAnnotations = { readOnly: true, destructive: false, idempotent: true, openWorld: false };
