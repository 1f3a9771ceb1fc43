/**
 * The key two vault paths share when a case-insensitive filesystem (APFS and HFS+
 * on macOS, NTFS and exFAT on Windows) may store them as one name: NFC, then
 * `toUpperCase`, then `toLowerCase`, then NFC again.
 *
 * Upper-casing first approximates Unicode full case folding, which those
 * filesystems follow more closely than plain lower-casing: `ß` → `SS` → `ss`,
 * `ſ` (long s) → `S` → `s`, `ﬁ` → `FI` → `fi`, so `Straße.md` and `STRASSE.md`,
 * or `.obſidian` and `.obsidian`, get one key. Lower-casing alone keeps `ß` and `ſ`
 * as they are. The final NFC recombines what case mapping decomposed (`İ` → `i̇`).
 * No locale: the key must not depend on the machine.
 *
 * Every check that asks "could this name be that one on disk?" uses this key: write
 * collisions and case aliases in the transaction engine, and reserved folders
 * ({@link isReservedPath}). Obsidian's link matching is a different fold
 * (`linkFoldKey` in the links module).
 */
export function filesystemFoldKey(p: string): string {
  return p.normalize('NFC').toUpperCase().toLowerCase().normalize('NFC');
}
