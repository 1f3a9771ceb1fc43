/**
 * Every bound of the transaction engine in one place (DESIGN §5.1, §1.8). Each is
 * checked before any side effect; the boundary value itself is allowed.
 */

/** Largest new content for one file: 64 MiB is fine, one byte more is not. */
export const MAX_FILE_BYTES = 64 * 1024 * 1024;
/** Largest total new content of one operation. */
export const MAX_OPERATION_BYTES = 128 * 1024 * 1024;
/** Most writes in one bundle. */
export const MAX_WRITES = 1024;
/** Longest vault-relative path, UTF-8 bytes (also enforced by the vault module). */
export const MAX_PATH_BYTES = 1024;
/** Longest path component on disk, UTF-8 bytes, *including* our temp-file decoration. */
export const MAX_COMPONENT_BYTES = 255;
/** Largest bundle document (inline content is JSON-escaped, so allow some growth). */
export const MAX_BUNDLE_BYTES = 300 * 1024 * 1024;
/** Deepest JSON nesting a bundle needs is 3; anything past this is an attack, not a bundle. */
export const MAX_JSON_DEPTH = 16;
/** `read_preconditions` entries. */
export const MAX_READ_PRECONDITIONS = 1024;
/**
 * Operation ids become folder names under `.vaultgate/txn/`, so they are kept to a
 * portable alphabet: starts with a letter or digit, then letters, digits, `.`, `_`, `-`.
 */
export const OPERATION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/**
 * Temp files are dot-files beside their target, so Obsidian ignores them:
 * `.<name>.vg-<op8>-<nnnn>.tmp`. Their length is fixed so the component limit can be
 * checked up front: the target name may use at most 255 − 22 bytes.
 */
export const TEMP_DECORATION_BYTES = '.'.length + '.vg-'.length + 8 + '-'.length + 4 + '.tmp'.length;
export const MAX_NAME_BYTES = MAX_COMPONENT_BYTES - TEMP_DECORATION_BYTES;
/** A name that looks like one of our temp files; bundles may not write such names. */
export const TEMP_NAME = /\.vg-[0-9a-f]{8}-\d{4}\.tmp$/;
