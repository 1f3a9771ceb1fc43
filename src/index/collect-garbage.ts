export { collectGarbage } from '../collect-garbage.js';

/** Links resolved between two collections in a big build. */
export const LINKS_PER_COLLECTION = 20_000;

/** Files written by a build from which it collects once before resolving links (the written rows' garbage), and collects while it loads. */
export const NOTES_PER_COLLECTION = 20_000;

/**
 * Files written between two collections while a build of more than
 * {@link NOTES_PER_COLLECTION} loads. Cold index of the 100k synthetic vault,
 * RSS sampled every 2 s: 414 MB at 44 s without (~430 MB peak); with one every
 * 20k files ~297 MB at 20 s, before the first; every 10k, 240–261 MB throughout.
 */
export const LOAD_FILES_PER_COLLECTION = 10_000;
