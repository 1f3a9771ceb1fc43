import { linkFoldKey } from './fold.js';

/**
 * Characters Obsidian's `stripHeading` turns into a space (reverse-engineered,
 * obsidian-links.md "Subpaths"): ! " # $ % & ( ) * + , . : ; < = > ? @ ^ ` { | } ~
 * / [ ] \ CR LF. `_` and `-` are kept, which is why a GitHub-style slug such as
 * `#heading-text` does not match the heading "Heading Text".
 */
const STRIPPED = /[!"#$%&()*+,.:;<=>?@^`{|}~/[\]\\\r\n]/g;

/**
 * Obsidian's heading normalisation: markup characters become spaces, runs of spaces
 * collapse to one, the ends are trimmed. `**Bold** and [[Other|x]]` → `Bold and Other x`.
 *
 * Only U+0020 runs collapse (tabs are kept as written): that is what the
 * reverse-engineered code does, and headings with tabs are rare enough that we
 * prefer fidelity to a guess.
 */
export function stripHeading(text: string): string {
  return text.replace(STRIPPED, ' ').replace(/ {2,}/g, ' ').trim();
}

/**
 * The key two headings (or a heading and a link segment) are compared by:
 * stripped, then case-folded and NFC (the same fold as link paths, so `## Über`
 * matches `#über` and Cyrillic headings match regardless of case).
 */
export function headingKey(text: string): string {
  return linkFoldKey(stripHeading(text));
}

/**
 * Block ids (`^id`: Latin letters, digits, `-`) match case-insensitively (documented).
 * Anything else in a link's id cannot name a block, but we compare it the same way
 * rather than reject it: it simply finds nothing.
 */
export function blockKey(id: string): string {
  return id.toLowerCase();
}
