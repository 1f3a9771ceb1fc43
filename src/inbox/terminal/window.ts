/**
 * Windowing a long list: only the rows on screen are drawn, and only the pages
 * of rows around them are loaded (PAGE_SIZE rows per `proposals --offset`), so a
 * queue of 100,000 costs what a queue of 10 does. Pure functions over indexes.
 */

/** Rows per page loaded from the core. */
export const PAGE_SIZE = 50;
/** Pages kept in memory per list; the ones farthest from the window go first. */
export const MAX_PAGES = 6;

export function clamp(n: number, lo: number, hi: number): number {
  return Math.max(lo, Math.min(hi, n));
}

/**
 * The first row shown so that `cursor` is on screen, moving the window as
 * little as possible from `top` (the cursor pushes the window, it does not
 * re-centre it), and never past the end of the list.
 */
export function followCursor(top: number, cursor: number, height: number, total: number): number {
  const h = Math.max(1, height);
  let t = top;
  if (cursor < t) t = cursor;
  else if (cursor >= t + h) t = cursor - h + 1;
  return clamp(t, 0, Math.max(0, total - h));
}

/** The page of a row. */
export function pageOf(row: number): number {
  return Math.floor(row / PAGE_SIZE);
}

/** Pages holding rows [top, top + height) of a list of `total` rows. */
export function pagesFor(top: number, height: number, total: number): number[] {
  if (total <= 0) return [0];
  const last = Math.min(total, top + Math.max(1, height)) - 1;
  const pages: number[] = [];
  for (let p = pageOf(Math.max(0, top)); p <= pageOf(Math.max(0, last)); p++) pages.push(p);
  return pages;
}

/** Drop the pages farthest from `around` until at most MAX_PAGES remain (the needed ones always stay). */
export function evictPages<T>(pages: Readonly<Record<number, T>>, needed: readonly number[], around: number): Record<number, T> {
  const keys = Object.keys(pages).map(Number);
  if (keys.length <= MAX_PAGES) return { ...pages };
  const keep = keys.sort((a, b) => Number(!needed.includes(a)) - Number(!needed.includes(b)) || Math.abs(a - around) - Math.abs(b - around)).slice(0, Math.max(MAX_PAGES, needed.length));
  const out: Record<number, T> = {};
  for (const k of keep) out[k] = pages[k]!;
  return out;
}

/** The row at index `i` when its page is loaded. */
export function rowAt<T>(pages: Readonly<Record<number, readonly T[]>>, i: number): T | undefined {
  return pages[pageOf(i)]?.[i - pageOf(i) * PAGE_SIZE];
}
