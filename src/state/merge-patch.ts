/**
 * JSON Merge Patch, RFC 7396 §2, exactly: an object patch merges key by key
 * (`null` removes a key, anything else replaces or merges into it), any other
 * patch replaces the target whole. Arrays are values, never merged.
 *
 * Objects built here have no prototype, so a key named `__proto__` (or
 * `constructor`) is an ordinary property: it can neither reach nor change
 * Object.prototype. Inputs are never modified.
 */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const out: Record<string, unknown> = Object.create(null);
  if (isObject(target)) for (const key of Object.keys(target)) out[key] = target[key];
  for (const key of Object.keys(patch)) {
    const value = patch[key];
    if (value === null) delete out[key];
    else out[key] = mergePatch(Object.hasOwn(out, key) ? out[key] : undefined, value);
  }
  return out;
}
