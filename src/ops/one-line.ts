/**
 * `text` on one terminal line of at most `max` characters: whitespace runs as
 * one space, cut after a whole word (when one ends in the second half) and
 * marked `…`. The `context` evidence previews and `relate prepare`'s fragments.
 */
export function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const head = flat.slice(0, max - 1);
  const cut = head.lastIndexOf(' ');
  return (cut > max / 2 ? head.slice(0, cut) : head) + '…';
}
