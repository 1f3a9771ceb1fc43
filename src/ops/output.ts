import { loadZod } from '../lazy-require.js';

/**
 * An operation's documented output (docs/json.md), as data: the fields its
 * JSON always has, with their JSON types. The MCP server turns it into the
 * tool's output schema, so a client can rely on the field names agents use
 * (agents have failed by reading fields that do not exist).
 *
 * Only what is promised is described: objects stay open (docs/json.md: unknown
 * fields are to be ignored, new ones may be added), so a new field never breaks
 * a client; a described field that goes missing or changes type does, and the
 * MCP end-to-end test calls every tool against its schema.
 *
 * A type is written as `'string'`, `'integer'`, `'number'`, `'boolean'`,
 * `'array'`, `'object'`, `'any'`, optionally `'|null'` (may be null) and/or a
 * leading `'?'` (may be absent); an array or object whose items matter is
 * `{ array: {...fields} }` or `{ object: {...fields} }`.
 */
type Scalar = 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'object' | 'any';
type Simple = Scalar | `${Scalar}|null`;
export type OutputType = Simple | `?${Simple}` | { readonly array: OutputFields | Simple; readonly optional?: boolean } | { readonly object: OutputFields; readonly nullable?: boolean; readonly optional?: boolean };
export type OutputFields = { readonly [field: string]: OutputType };

type Zod = typeof import('zod');
type ZodType = import('zod').ZodType;

function scalar(z: Zod['z'], s: Scalar): ZodType {
  switch (s) {
    case 'string':
      return z.string();
    case 'integer':
      return z.number().int();
    case 'number':
      return z.number();
    case 'boolean':
      return z.boolean();
    case 'array':
      return z.array(z.unknown());
    case 'object':
      return z.looseObject({});
    case 'any':
      return z.unknown();
  }
}

function fieldType(z: Zod['z'], t: OutputType): ZodType {
  if (typeof t === 'string') {
    const optional = t.startsWith('?');
    const body = (optional ? t.slice(1) : t) as Simple;
    const nullable = body.endsWith('|null');
    let out = scalar(z, (nullable ? body.slice(0, -5) : body) as Scalar);
    if (nullable) out = out.nullable();
    return optional ? out.optional() : out;
  }
  if ('array' in t) {
    const items = typeof t.array === 'string' ? fieldType(z, t.array) : objectOf(z, t.array);
    const out = z.array(items);
    return t.optional ? out.optional() : out;
  }
  let out: ZodType = objectOf(z, t.object);
  if (t.nullable) out = out.nullable();
  return t.optional ? out.optional() : out;
}

function objectOf(z: Zod['z'], fields: OutputFields): ZodType {
  const shape: Record<string, ZodType> = {};
  for (const [name, t] of Object.entries(fields)) shape[name] = fieldType(z, t);
  return z.looseObject(shape);
}

/**
 * The zod schema of an operation's success document as a face prints it:
 * `{ok: true, ...fields}`, open to fields not listed. Without `fields` (an
 * operation that does not describe its output yet), only `ok` is promised.
 */
export function outputZodSchema(fields: OutputFields | undefined): import('zod').ZodObject {
  const { z } = loadZod();
  const shape: Record<string, ZodType> = { ok: z.literal(true) };
  for (const [name, t] of Object.entries(fields ?? {})) shape[name] = fieldType(z, t);
  return z.looseObject(shape);
}
