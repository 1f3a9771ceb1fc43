export { collectGarbage } from '../collect-garbage.js';

/** Links resolved between two collections in a big build. */
export const LINKS_PER_COLLECTION = 20_000;

/** Files written by a build from which it collects once before resolving links (the written rows' garbage). */
export const NOTES_PER_COLLECTION = 20_000;
