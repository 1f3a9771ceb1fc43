import { CONTEXT_BOUNDS } from '../context/types.js';
import { VaultgateError } from '../errors.js';
import { loadYaml, loadZod, once } from '../lazy-require.js';
import { compilePathGlob } from '../vault/index.js';

/**
 * `scenario.yaml`: what a scenario is (docs/policy.md lists every key). Strict:
 * an unknown key anywhere, a wrong type or a missing required key is
 * SCENARIO_INVALID naming the file and the key, because a misspelt rule
 * (`required_frontmater`) that was silently ignored would weaken a write policy
 * without anyone noticing.
 *
 * ```yaml
 * name: books
 * version: 1
 * description: Book notes and quotes
 * areas: ["Books/**", "Quotes/**"]
 * context: {budget_chars: 12000, limit: 20, max_linked: 5}
 * write:
 *   required_frontmatter: [type, source]
 *   frontmatter:
 *     type: {one_of: [quote, note]}
 *     tags: {contains: [books]}
 * ```
 */

/** The only `version` this vaultgate reads; a newer format is refused, not half-read. */
export const SCENARIO_FORMAT_VERSION = 1;
/** Most area globs, required keys and property rules in one scenario. */
export const MAX_SCENARIO_LIST_ITEMS = 100;

export type Scalar = string | number | boolean;
export type PropertyType = 'string' | 'number' | 'boolean' | 'list' | 'date';
export const PROPERTY_TYPES: readonly PropertyType[] = ['string', 'number', 'boolean', 'list', 'date'];

/**
 * A rule about one frontmatter property. Every rule given must hold. A property
 * with a rule must be present (a rule about a missing property fails) unless
 * `optional: true`.
 */
export interface PropertyRule {
  /** The value is one of these (a single value, not a list). */
  one_of?: Scalar[];
  /** The value is a list (a single value counts as a list of one) holding every one of these. */
  contains?: Scalar[];
  /** The value's type; `date` is a `YYYY-MM-DD` string (YAML dates stay strings). */
  type?: PropertyType;
  /** The rule applies only when the property is present. */
  optional?: boolean;
}

export interface ScenarioSpec {
  name: string;
  version: typeof SCENARIO_FORMAT_VERSION;
  description: string;
  /** Vault-path globs: where context searches and where writes may go. */
  areas: string[];
  /** Defaults for `context --scenario` (explicit flags win). */
  context: { budget_chars?: number; limit?: number; max_linked?: number };
  write: {
    /** Properties every written note must have, with a non-empty value. */
    required_frontmatter: string[];
    /** Rules per property (a null-prototype map: a property may be called `__proto__`). */
    frontmatter: Record<string, PropertyRule>;
  };
}

const schema = once(() => {
  const { z } = loadZod();
  const int = (b: { min: number; max: number }) => z.number().int().min(b.min).max(b.max);
  const scalar = z.union([z.string(), z.number(), z.boolean()]);
  const rule = z
    .strictObject({
      one_of: z.array(scalar).min(1).max(MAX_SCENARIO_LIST_ITEMS).optional(),
      contains: z.array(scalar).min(1).max(MAX_SCENARIO_LIST_ITEMS).optional(),
      type: z.enum(PROPERTY_TYPES as [PropertyType, ...PropertyType[]]).optional(),
      optional: z.boolean().optional(),
    })
    .refine((r) => r.one_of !== undefined || r.contains !== undefined || r.type !== undefined, {
      message: 'a rule needs at least one of one_of, contains, type',
    });
  const key = z.string().min(1).max(200);
  const spec = z.strictObject({
    name: z.string(),
    version: z.literal(SCENARIO_FORMAT_VERSION),
    description: z.string().max(1000).optional(),
    areas: z.array(z.string()).min(1).max(MAX_SCENARIO_LIST_ITEMS),
    context: z
      .strictObject({
        budget_chars: int(CONTEXT_BOUNDS.budget_chars).optional(),
        limit: int(CONTEXT_BOUNDS.limit).optional(),
        max_linked: int(CONTEXT_BOUNDS.max_linked).optional(),
      })
      .optional(),
    write: z
      .strictObject({
        required_frontmatter: z.array(key).max(MAX_SCENARIO_LIST_ITEMS).optional(),
        // Checked key by key below, not with z.record: zod drops a key named
        // `__proto__` without a word, and a dropped rule is a weakened policy.
        frontmatter: z
          .custom<Record<string, unknown>>((v) => typeof v === 'object' && v !== null && !Array.isArray(v), { message: 'must be a map of property rules' })
          .refine((m) => Object.keys(m).length <= MAX_SCENARIO_LIST_ITEMS, { message: `at most ${MAX_SCENARIO_LIST_ITEMS} property rules` })
          .optional(),
      })
      .optional(),
  });
  return { spec, rule, key };
});

const KNOWN_KEYS = 'name, version, description, areas, context {budget_chars, limit, max_linked}, write {required_frontmatter, frontmatter {KEY: {one_of, contains, type, optional}}}';

function invalid(file: string, message: string, details: Record<string, unknown> = {}): VaultgateError {
  return new VaultgateError('SCENARIO_INVALID', `${file}: ${message}`, {
    details: { file, ...details },
    hint: `Fix the key the message names (docs/policy.md). Known keys: ${KNOWN_KEYS}.`,
  });
}

type Issue = import('zod').core.$ZodIssue;

/** The first issue as SCENARIO_INVALID; an unknown key first, so `areaz:` is reported as the typo it is, not as "missing areas". */
function schemaError(file: string, raw: unknown, issues: readonly Issue[], prefix: PropertyKey[] = []): VaultgateError {
  const issue = issues.find((i) => i.code === 'unrecognized_keys') ?? issues[0]!;
  const at = [...prefix, ...issue.path];
  const where = keyPath(at);
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0]!;
    const full = where ? `${where}.${key}` : key;
    return invalid(file, `unknown key ${JSON.stringify(full)}`, { key: full });
  }
  if (at.length > 0 && valueAt(raw, at) === undefined) return invalid(file, `missing key ${JSON.stringify(where)}`, { key: where });
  return invalid(file, `${where || '(root)'}: ${issue.message}`, { key: where });
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let v = value;
  for (const p of path) {
    if (v === null || typeof v !== 'object' || !Object.hasOwn(v, p)) return undefined;
    v = (v as Record<PropertyKey, unknown>)[p];
  }
  return v;
}

/** `a.b[2].c` from a zod issue path. */
function keyPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : `${out ? '.' : ''}${String(p)}`;
  return out;
}

/**
 * Parse and check the text of a `scenario.yaml`. `file` names it in errors
 * (e.g. `~/.config/vaultgate/scenarios/books/scenario.yaml`); `folderName` is the
 * scenario's folder, which `name` must equal.
 */
export function parseScenarioYaml(text: string, file: string, folderName: string): ScenarioSpec {
  const YAML = loadYaml();
  let raw: unknown;
  try {
    // uniqueKeys (the default): a key given twice is an error, not "the last one wins"
    raw = YAML.parse(text, { prettyErrors: true });
  } catch (e) {
    throw invalid(file, `not valid YAML: ${(e as Error).message.split('\n')[0]}`);
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw invalid(file, 'must be a map of keys (name, version, areas, …)');
  const parsed = schema().spec.safeParse(raw);
  if (!parsed.success) throw schemaError(file, raw, parsed.error.issues);
  const data = parsed.data;
  if (data.name !== folderName) {
    throw invalid(file, `name ${JSON.stringify(data.name)} differs from its folder ${JSON.stringify(folderName)}`, { key: 'name' });
  }
  const areas = data.areas.map((g, i) => compilePathGlob(g, `${file}: areas[${i}]`, 'SCENARIO_INVALID').glob);
  const frontmatter: Record<string, PropertyRule> = Object.create(null);
  for (const [key, value] of Object.entries(data.write?.frontmatter ?? {})) {
    const checkedKey = schema().key.safeParse(key);
    if (!checkedKey.success) throw invalid(file, `write.frontmatter: property name ${JSON.stringify(key)}: ${checkedKey.error.issues[0]!.message}`, { key: 'write.frontmatter' });
    const checked = schema().rule.safeParse(value);
    if (!checked.success) throw schemaError(file, raw, checked.error.issues, ['write', 'frontmatter', key]);
    const rule = checked.data;
    if (rule.one_of && rule.type && !rule.one_of.every((v) => fitsType(v, rule.type!))) {
      throw invalid(file, `write.frontmatter.${key}: a one_of value is not of type ${rule.type}`, { key: `write.frontmatter.${key}` });
    }
    const clean: PropertyRule = {};
    if (rule.one_of) clean.one_of = rule.one_of;
    if (rule.contains) clean.contains = rule.contains;
    if (rule.type) clean.type = rule.type;
    if (rule.optional !== undefined) clean.optional = rule.optional;
    Object.defineProperty(frontmatter, key, { value: clean, enumerable: true, writable: true, configurable: true });
  }
  const context: ScenarioSpec['context'] = {};
  if (data.context?.budget_chars !== undefined) context.budget_chars = data.context.budget_chars;
  if (data.context?.limit !== undefined) context.limit = data.context.limit;
  if (data.context?.max_linked !== undefined) context.max_linked = data.context.max_linked;
  return {
    name: data.name,
    version: SCENARIO_FORMAT_VERSION,
    description: data.description ?? '',
    areas,
    context,
    write: { required_frontmatter: [...new Set(data.write?.required_frontmatter ?? [])], frontmatter },
  };
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Whether a frontmatter value has a property type. */
export function fitsType(value: unknown, type: PropertyType): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'list':
      return Array.isArray(value);
    case 'date': {
      if (typeof value !== 'string' || !DATE.test(value)) return false;
      // a real calendar day: 2026-02-30 is refused (Date would roll it over to March)
      const d = new Date(value + 'T00:00:00Z');
      return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === value;
    }
  }
}
