/**
 * Which field of a change request an error is about, carried on the error
 * itself (a symbol: never in its JSON) from where it is known — an edit
 * function, a handler — to where the request's index is known
 * (`resolveChanges`), which then names both: `changes[2].heading`.
 */
const FIELD = Symbol('request field');

/** `e`, marked as being about the request's `name` field (unless already marked). */
export function tagged<E>(name: string, e: E): E {
  if (e !== null && typeof e === 'object' && !(FIELD in e)) (e as Record<symbol, string>)[FIELD] = name;
  return e;
}

/** Run `fn`; an error it throws is about the request's `name` field unless it already names one. */
export function field<T>(name: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    throw tagged(name, e);
  }
}

/** The field an error was marked with, if any. */
export function fieldOf(e: unknown): string | undefined {
  return e !== null && typeof e === 'object' ? (e as Record<symbol, string | undefined>)[FIELD] : undefined;
}

const LIST_HINT = Symbol('hint for a list caller');

/** `e`, with the hint to give instead when the request came in a list (the caller sent no flags: a CLI hint names steps it cannot take). */
export function withListHint<E extends Error>(e: E, hint: string): E {
  (e as unknown as Record<symbol, string>)[LIST_HINT] = hint;
  return e;
}

export function listHintOf(e: unknown): string | undefined {
  return e !== null && typeof e === 'object' ? (e as Record<symbol, string | undefined>)[LIST_HINT] : undefined;
}
