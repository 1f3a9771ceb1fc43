import { VaultgateError } from '../errors.js';
import { loadZod } from '../lazy-require.js';

/**
 * An operation's input schema, as data. Every face derives what it needs from
 * this one list: the CLI its arguments, flags, defaults and help text; the MCP
 * server a zod object (JSON Schema for `tools/list`); both the same validation.
 *
 * Why not a zod object directly: zod costs 35–60 ms of module loading on these
 * machines, and every agent call to the CLI is a new process whose whole budget
 * is about that. So the schema is plain data here, and {@link inputZodShape}
 * builds the zod form only in the faces that need it (the MCP server).
 *
 * Names are snake_case (the MCP tool's argument and the JSON key); the CLI flag
 * is the kebab-case form (`budget_chars` → `--budget-chars`).
 */
export type Param =
  | StringParam
  | IntParam
  | NumberParam
  | BooleanParam
  | EnumParam
  | StringsParam
  | JsonParam;

interface ParamBase {
  /** snake_case key of the input object; MCP argument name. */
  readonly name: string;
  /** One line for help text and the JSON Schema `description`. */
  readonly description: string;
  /** The MCP argument's description, when `description` speaks CLI (flags, placeholders, "repeatable"). */
  readonly toolDescription?: string;
  /** Must be given (positional arguments are required unless `required: false`). */
  readonly required?: boolean;
  /**
   * A CLI argument rather than a flag. `'variadic'`: the rest of the command line,
   * joined with one space for a string (`search how does it work`), collected
   * for `strings`.
   */
  readonly positional?: true | 'variadic';
  /** The CLI value placeholder in help (`<n>`, `<path>`). */
  readonly placeholder?: string;
  /** Offered on the CLI only (e.g. `--stdin`, `--content-file`): MCP sends values, not files. */
  readonly cliOnly?: boolean;
  /** Offered to MCP clients only. */
  readonly mcpOnly?: boolean;
}

export interface StringParam extends ParamBase {
  readonly type: 'string';
  readonly default?: string;
  /** Refuse values that do not match, with this hint. */
  readonly pattern?: { readonly regex: RegExp; readonly hint: string };
  /** Refuse the empty string (and whitespace only). */
  readonly nonEmpty?: boolean;
  /** CLI: the flag may be given without a value (`--snapshot` alone), meaning this value. */
  readonly bareValue?: string;
  /**
   * The value is a JSON document as text (a merge patch, a changes document).
   * API callers (MCP clients) may send the document itself instead of its text:
   * an object or array is serialised here, so the operation still parses one
   * form, strictly.
   */
  readonly jsonText?: boolean;
}
export interface IntParam extends ParamBase {
  readonly type: 'int';
  readonly default?: number;
  readonly min?: number;
  readonly max?: number;
}
export interface NumberParam extends ParamBase {
  readonly type: 'number';
  readonly default?: number;
  readonly min?: number;
  readonly max?: number;
}
export interface BooleanParam extends ParamBase {
  readonly type: 'boolean';
}
export interface EnumParam extends ParamBase {
  readonly type: 'enum';
  readonly values: readonly string[];
  readonly default?: string;
}
/** A list of strings: a repeatable flag on the CLI, an array for MCP. */
export interface StringsParam extends ParamBase {
  readonly type: 'strings';
}

/**
 * A JSON value an API caller sends as is (MCP, the web API): a list of change
 * requests. Never a CLI flag (`mcpOnly` is implied). Passed through unchanged:
 * the operation parses it with its own strict parser, whose errors name the
 * element and field (`changes[2].heading`); `schema` (built on demand, zod) is
 * only what `tools/list` shows.
 */
export interface JsonParam extends ParamBase {
  readonly type: 'json';
  readonly mcpOnly: true;
  readonly schema: () => import('zod').ZodType;
}

type ValueOf<P> = P extends { type: 'json' }
  ? unknown
  : P extends { type: 'string' }
  ? string
  : P extends { type: 'int' | 'number' }
    ? number
    : P extends { type: 'boolean' }
      ? boolean
      : P extends { type: 'enum'; values: readonly (infer V)[] }
        ? V
        : P extends { type: 'strings' }
          ? string[]
          : never;

/** Always present after validation: booleans, lists, defaults and required values. */
type Present<P> = P extends { type: 'boolean' | 'strings' }
  ? true
  : P extends { default: string | number }
    ? true
    : P extends { required: true }
      ? true
      : P extends { positional: true | 'variadic'; required?: undefined }
        ? true
        : false;

/** The validated input object a list of params describes. */
export type InputOf<Ps extends readonly Param[]> = {
  [P in Ps[number] as P['name']]: Present<P> extends true ? ValueOf<P> : ValueOf<P> | undefined;
};

/** The kebab-case CLI flag of a param: `budget_chars` → `budget-chars`. */
export function flagName(p: Param): string {
  return p.name.replace(/_/g, '-');
}

/** Whether a value must be present (positionals default to required). */
export function isRequired(p: Param): boolean {
  return p.required ?? p.positional !== undefined;
}

function usage(message: string, hint: string, param: string): VaultgateError {
  return new VaultgateError('USAGE', message, { hint, details: { param } });
}

/**
 * Validate and complete an input object. `from: 'cli'` accepts the strings a
 * command line gives (numbers as text, a variadic string as words); `from: 'api'`
 * wants JSON types. Unknown keys are refused (a typo must never be ignored),
 * defaults filled in, every bound checked: one typed USAGE error names the
 * param and the fix.
 */
export function parseInput<Ps extends readonly Param[]>(params: Ps, raw: Record<string, unknown>, from: 'cli' | 'api'): InputOf<Ps> {
  const known = new Map(params.filter((p) => (from === 'cli' ? !p.mcpOnly : !p.cliOnly)).map((p) => [p.name, p] as const));
  for (const key of Object.keys(raw)) {
    if (!known.has(key)) {
      throw usage(`unknown argument ${JSON.stringify(key)}`, `Known arguments: ${[...known.keys()].join(', ') || '(none)'}.`, key);
    }
  }
  const out: Record<string, unknown> = Object.create(null);
  for (const p of known.values()) {
    const value = raw[p.name];
    out[p.name] = value === undefined || value === null ? missing(p, from) : coerce(p, value, from);
  }
  return { ...out } as InputOf<Ps>;
}

function label(p: Param, from: 'cli' | 'api'): string {
  if (from === 'api') return p.name;
  return p.positional ? p.name.toUpperCase() : `--${flagName(p)}`;
}

function missing(p: Param, from: 'cli' | 'api'): unknown {
  if (p.type === 'boolean') return false;
  if (p.type === 'strings') return [];
  if ('default' in p && p.default !== undefined) return p.default;
  if (isRequired(p)) throw usage(`missing ${label(p, from)}: ${p.description}`, `Give ${label(p, from)}; see \`vaultgate <command> --help\`.`, p.name);
  return undefined;
}

function coerce(p: Param, value: unknown, from: 'cli' | 'api'): unknown {
  const name = label(p, from);
  switch (p.type) {
    case 'string': {
      if (from === 'api' && p.jsonText && typeof value === 'object' && value !== null) return JSON.stringify(value);
      const s = from === 'cli' && Array.isArray(value) ? value.join(' ') : value;
      if (typeof s !== 'string') throw usage(`${name} must be a string`, `Pass text for ${name}.`, p.name);
      if (p.nonEmpty && s.trim() === '') throw usage(`${name} is empty`, `Give a non-empty ${name}.`, p.name);
      if (p.pattern && !p.pattern.regex.test(s)) throw usage(`${name} ${JSON.stringify(s)} is not valid`, p.pattern.hint, p.name);
      return s;
    }
    case 'int':
    case 'number': {
      let n: unknown = value;
      if (from === 'cli' && typeof value === 'string') n = p.type === 'int' ? (/^-?\d+$/.test(value.trim()) ? Number(value) : NaN) : value.trim() === '' ? NaN : Number(value);
      if (typeof n !== 'number' || !Number.isFinite(n) || (p.type === 'int' && !Number.isSafeInteger(n))) {
        throw usage(`${name} must be ${p.type === 'int' ? 'a whole number' : 'a number'}, not ${JSON.stringify(value)}`, boundsHint(p, name), p.name);
      }
      if ((p.min !== undefined && n < p.min) || (p.max !== undefined && n > p.max)) throw usage(`${name} is out of range: ${n}`, boundsHint(p, name), p.name);
      return n;
    }
    case 'boolean': {
      if (typeof value === 'boolean') return value;
      throw usage(`${name} must be true or false`, `Pass a boolean for ${name}.`, p.name);
    }
    case 'enum': {
      if (typeof value === 'string' && p.values.includes(value)) return value;
      throw usage(`${name} must be one of ${p.values.join(', ')}, not ${JSON.stringify(value)}`, `Use one of: ${p.values.join(', ')}.`, p.name);
    }
    case 'json':
      return value;
    case 'strings': {
      const list = typeof value === 'string' && from === 'cli' ? [value] : value;
      if (!Array.isArray(list) || !list.every((v) => typeof v === 'string')) throw usage(`${name} must be a list of strings`, `Pass ${name} as an array of strings.`, p.name);
      return [...list];
    }
  }
}

function boundsHint(p: IntParam | NumberParam, name: string): string {
  const lo = p.min !== undefined ? `≥ ${p.min}` : '';
  const hi = p.max !== undefined ? `≤ ${p.max}` : '';
  return `${name} takes ${p.type === 'int' ? 'a whole number' : 'a number'}${lo || hi ? ' ' + [lo, hi].filter(Boolean).join(' and ') : ''}.`;
}

/**
 * The zod shape of an operation's API input, for the MCP server's tool schemas
 * (built on demand: see the module comment). `z.strictObject(shape)` refuses
 * unknown arguments, as {@link parseInput} does.
 */
export function inputZodShape(params: readonly Param[]): Record<string, import('zod').ZodType> {
  const { z } = loadZod();
  const shape: Record<string, import('zod').ZodType> = {};
  for (const p of params) {
    if (p.cliOnly) continue;
    let t: import('zod').ZodType;
    switch (p.type) {
      case 'string': {
        let s = z.string();
        if (p.nonEmpty) s = s.min(1);
        t = p.jsonText ? z.union([s, z.record(z.string(), z.unknown()), z.array(z.unknown())]) : s;
        break;
      }
      case 'int':
      case 'number': {
        let n = p.type === 'int' ? z.number().int() : z.number();
        if (p.min !== undefined) n = n.min(p.min);
        if (p.max !== undefined) n = n.max(p.max);
        t = n;
        break;
      }
      case 'boolean':
        t = z.boolean();
        break;
      case 'enum':
        t = z.enum(p.values as [string, ...string[]]);
        break;
      case 'strings':
        t = z.array(z.string());
        break;
      case 'json':
        t = p.schema();
        break;
    }
    const described = t.describe(p.description + ('default' in p && p.default !== undefined ? ` (default ${JSON.stringify(p.default)})` : ''));
    shape[p.name] = isRequired(p) && !('default' in p && p.default !== undefined) ? described : described.optional();
  }
  return shape;
}

/** A positional vault path argument (a note's or a file's), never empty. */
export const vaultPath = <N extends string>(name: N, description: string) => ({ name, type: 'string', positional: true, description, nonEmpty: true }) as const;
