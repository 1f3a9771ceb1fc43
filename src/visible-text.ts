/**
 * What a person is shown of a string that came from an agent or a note: every
 * character that draws nothing, or that changes how the characters around it
 * are drawn, replaced by its code (`<U+202E>`). A diff line with a right-to-left
 * override (`limit: \u202e0001`) would read `limit: 1000` while `0001` is
 * written ("Trojan Source"); a zero-width space makes two different lines look
 * alike; an ESC can rewrite a terminal. The web inbox, the terminal inbox and
 * the CLI's text output of proposals all show strings through this one
 * function (the web page embeds its source, see src/inbox/web/assets.ts).
 *
 * Escaped (docs/proposals.md "What a reviewer sees"):
 * - every control character (Unicode category Cc: C0, DEL, C1) but tab, and
 *   line feed only when the caller shows several lines (`keepLineBreaks`);
 * - every format character (Cf): the bidi embeddings, overrides and isolates
 *   (U+202A–202E, U+2066–2069), the marks U+200E/200F/061C, zero-width space,
 *   joiners and non-joiner (U+200B–200D: an emoji sequence or a Persian word
 *   then shows its joiners — legible beats invisible in a review), U+2060–2064,
 *   the byte-order mark U+FEFF, soft hyphen, tag characters (U+E0000–E007F);
 * - the line and paragraph separators U+2028/2029 (Zl, Zp), which break a line
 *   where the diff has none;
 * - a lone surrogate (Cs), which no UTF-8 text holds.
 *
 * Not escaped: variation selectors and combining marks (they draw or change a
 * glyph visibly), spaces of other widths (visible as space). The escape is not
 * reversible: a note that holds the literal text `<U+202E>` shows the same.
 *
 * Self-contained on purpose (no reference outside its body): the web page
 * runs this function's own source text.
 */
export function visibleText(s: string, opts?: { keepLineBreaks?: boolean }): string {
  const keep = opts !== undefined && opts.keepLineBreaks === true;
  return String(s).replace(/[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/gu, function (c) {
    if (c === '\t' || (keep && c === '\n')) return c;
    return '<U+' + c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0') + '>';
  });
}

/** {@link visibleText} for text of several lines: each line escaped, the line breaks kept. */
export function visibleLines(s: string): string {
  return visibleText(s, { keepLineBreaks: true });
}
