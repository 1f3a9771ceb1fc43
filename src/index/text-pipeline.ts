import { stemmer as stemEnglish } from '@orama/stemmers/english';
import { stemmer as stemRussian } from '@orama/stemmers/russian';

/**
 * The text pipeline that turns note text (and query text) into the tokens FTS5
 * sees. better-sqlite3 cannot register a tokenizer written in JS, so the index
 * stores pre-processed text and FTS5's own `unicode61` tokenizer merely splits it
 * on spaces again (dependencies.md §15):
 *
 *   "Заметки о Ёлке, engines 全文搜索"
 *     → NFKC, lowercase, ё→е   "заметки о елке, engines 全文搜索"
 *     → words (CJK by Intl.Segmenter, one line at a time)
 *                               заметки о елке engines 全文 搜索
 *     → stems (ru / en)         заметк о елк engin 全文 搜索
 *
 * The same function runs on the query side, so both sides always agree.
 */

/** Tokens longer than this are noise (base64, hashes, minified code) and are not indexed. */
export const MAX_TOKEN_CHARS = 48;

/**
 * Lines longer than this are cut into pieces before segmentation: Intl.Segmenter
 * is superlinear on long input (95k chars of Chinese took 6.5 s in one call).
 */
const MAX_SEGMENT_CHARS = 1000;

const CYRILLIC = /^[\u0400-\u04FF]+$/;
const HANGUL = /^[\uAC00-\uD7AF]+$/;
const LATIN = /^[a-z\u00C0-\u024F]+$/;
const LATIN_DIACRITIC = /[\u00C0-\u024F]/;
/** `data:` URIs (inline base64 images) carry no words, only megabytes of noise. */
const DATA_URI = /data:[a-z0-9.+-]+\/[a-z0-9.+-]+[;,][^\s)"'\]]*/g;
const WORD_CHAR = /^[\p{L}\p{N}\p{M}]$/u;

/**
 * Character classes of the BMP, filled in on first sight: 1 word character,
 * 2 separator, 3 CJK (word character handed to the segmenter). A hand-written
 * scanner with this table is ~3× faster than a `\p{L}` regex over the text, and
 * the table costs nothing at start-up (a CLI process starts for every search).
 */
const WORD = 1;
const SEP = 2;
const CJK_CHAR = 3;
const classes = new Uint8Array(0x10000);

/** The CJK blocks (first and last code unit): characters handed to the segmenter and cut into bigrams. */
const CJK_BLOCKS: readonly (readonly [number, number])[] = [
  [0x3040, 0x30ff], // Hiragana, Katakana
  [0x3400, 0x4dbf], // CJK Extension A
  [0x4e00, 0x9fff], // CJK Unified Ideographs
  [0xac00, 0xd7af], // Hangul syllables
  [0x1100, 0x11ff], // Hangul Jamo
  [0xf900, 0xfaff], // CJK Compatibility Ideographs
  [0x31f0, 0x31ff], // Katakana extension
];

function isCjk(c: number): boolean {
  return CJK_BLOCKS.some(([lo, hi]) => c >= lo && c <= hi);
}

/**
 * Any character of {@link CJK_BLOCKS}, as one regex: {@link hasCjk} runs on
 * every section body, and V8 scans a character class ~15× faster than the
 * scanner's loop over the class table (10k synthetic notes: 11 ms vs 156 ms).
 */
const ANY_CJK = new RegExp(`[${CJK_BLOCKS.map(([lo, hi]) => `\\u${hex4(lo)}-\\u${hex4(hi)}`).join('')}]`);

function hex4(c: number): string {
  return c.toString(16).padStart(4, '0');
}

function classOf(c: number): number {
  let k = classes[c]!;
  if (k === 0) {
    k = isCjk(c) ? CJK_CHAR : c >= 0xd800 && c <= 0xdfff ? WORD : WORD_CHAR.test(String.fromCharCode(c)) ? WORD : SEP;
    classes[c] = k;
  }
  return k;
}

let segmenter: Intl.Segmenter | undefined;

/** NFKC, lower case, ё→е (FTS5's unicode61 does not fold ё; Russian writers mostly omit it). */
export function normalizeText(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/ё/g, 'е');
}

function pushWord(out: string[], word: string): void {
  if (word.length <= MAX_TOKEN_CHARS) out.push(word);
}

/** Split a run of CJK characters into dictionary words, in bounded pieces. */
function segmentCjk(run: string, out: string[]): void {
  segmenter ??= new Intl.Segmenter('zh', { granularity: 'word' });
  for (let i = 0; i < run.length; i += MAX_SEGMENT_CHARS) {
    for (const s of segmenter.segment(run.slice(i, i + MAX_SEGMENT_CHARS))) if (s.isWordLike) pushWord(out, s.segment);
  }
}

/**
 * The stemmed words of recent short CJK runs. Intl.Segmenter costs ~2 µs per
 * word however it is called (one run at a time or many joined), and a run is
 * often a clause or a term that recurs (10k synthetic notes: 44k runs, 30k
 * distinct; the segmenter was ~0.75 s of the cold index's CPU). A run's words
 * depend on the run alone, so a cached answer is the same answer.
 */
const cjkCache = new Map<string, readonly string[]>();
const CJK_CACHE_LIMIT = 20_000;
/** Longer runs (clauses, sentences) seldom recur (the synthetic vault: 14k of 19k runs of 9–32 characters are unique); they are segmented every time. */
const CJK_CACHE_MAX_CHARS = 8;

/** The stemmed words of one maximal run of CJK characters, in order. */
function cjkRunTokens(run: string): readonly string[] {
  const hit = cjkCache.get(run);
  if (hit !== undefined) return hit;
  const words: string[] = [];
  segmentCjk(run, words);
  for (let w = 0; w < words.length; w++) words[w] = detached(stemWord(words[w]!));
  if (run.length <= CJK_CACHE_MAX_CHARS) {
    if (cjkCache.size >= CJK_CACHE_LIMIT) cjkCache.clear();
    cjkCache.set(detached(run), words);
  }
  return words;
}

/**
 * Words of already-normalized text, in order: runs of letters, digits and marks
 * (what FTS5's unicode61 calls tokens), with runs of CJK characters split into
 * dictionary words by Intl.Segmenter. Surrogate pairs count as word characters.
 */
export function lineWords(text: string, out: string[] = []): string[] {
  const clean = text.includes('data:') ? text.replace(DATA_URI, ' ') : text;
  const n = clean.length;
  let i = 0;
  while (i < n) {
    let k = classOf(clean.charCodeAt(i));
    if (k === SEP) {
      i++;
      continue;
    }
    const start = i;
    if (k === CJK_CHAR) {
      while (i < n && classOf(clean.charCodeAt(i)) === CJK_CHAR) i++;
      segmentCjk(clean.slice(start, i), out);
      continue;
    }
    while (i < n && (k = classOf(clean.charCodeAt(i))) === WORD) i++;
    pushWord(out, clean.slice(start, i));
  }
  return out;
}

/**
 * Overlapping character bigrams of the CJK runs of normalized text, then the
 * run's last character: 面包面团 → 面包 包面 面团 团. So every character of the
 * run starts one of its grams, and a one-character query (searched as a prefix)
 * finds it wherever it stands (a query leaves the last character of a longer run
 * out: `lastOfLongRuns` false). The safety net
 * under word segmentation: the segmenter may cut a word one way in a note and
 * another way in a question (面团 is 面/团 after 面包 but may be whole elsewhere),
 * and a bigram search still finds it. Only CJK runs are kept; `out` is appended to.
 */
export function cjkBigrams(text: string, out: string[] = [], lastOfLongRuns = true): string[] {
  const n = text.length;
  let i = 0;
  while (i < n) {
    if (classOf(text.charCodeAt(i)) !== CJK_CHAR) {
      i++;
      continue;
    }
    const start = i;
    while (i < n && classOf(text.charCodeAt(i)) === CJK_CHAR) i++;
    for (let k = start; k + 1 < i; k++) out.push(text.slice(k, k + 2));
    if (lastOfLongRuns || i - start === 1) out.push(text[i - 1]!);
  }
  return out;
}

/** The maximal runs of CJK characters of normalized text, in order. */
export function cjkRuns(text: string): string[] {
  const out: string[] = [];
  const n = text.length;
  for (let i = 0; i < n; ) {
    if (classOf(text.charCodeAt(i)) !== CJK_CHAR) {
      i++;
      continue;
    }
    const start = i;
    while (i < n && classOf(text.charCodeAt(i)) === CJK_CHAR) i++;
    out.push(text.slice(start, i));
  }
  return out;
}

/** Whether text holds any CJK character (Han, kana, Hangul): a character {@link cjkRuns} would find. */
export function hasCjk(text: string): boolean {
  return ANY_CJK.test(text);
}

const stemCache = new Map<string, string>();
/**
 * Entries before the cache starts over. Was 200k; at 50k a cold index is no
 * slower (10k notes: 12.2–12.7 s CPU either way; 100k: 113 vs 119 s) and its
 * peak memory a little lower (100k: 253 vs 257 MB): the words that recur are
 * back in the cache within a few notes, and a full 200k-entry map is ~20 MB.
 */
const STEM_CACHE_LIMIT = 50_000;

/**
 * Korean particles (postpositions attach to the word: 반죽은, 반죽을, 반죽에서 are
 * all "dough"), longest first, and the endings of 하다/되다 verbs built on a noun
 * (발효해야, 발효하는 → 발효, "to ferment"). Korean is spaced, so Intl.Segmenter
 * keeps 반죽은 whole; without this a question's 반죽 would never meet the note's 반죽은.
 */
const KO_ENDINGS = ['했습니다', '합니다', '하나요', '했어요', '됩니다', '해야', '해요', '하는', '하면', '하고', '했다', '한다', '하기', '하여', '해서', '되는', '되어', '되면', '할', '함', '했', '된'];
const KO_PARTICLES = [
  '에서부터', '으로부터', '에게서', '한테서', '이라도', '이라고', '이라는', '에서는', '에서도', '에게는', '으로는', '까지는', '부터는',
  '에서', '에게', '한테', '께서', '부터', '까지', '으로', '처럼', '보다', '마다', '조차', '밖에', '이나', '이랑', '이며', '라고', '라는', '에는', '에도',
  '은', '는', '이', '가', '을', '를', '에', '의', '와', '과', '도', '로', '만', '랑',
];

/**
 * Strip Korean particles and verb endings until none applies (at most three), so
 * a word with a particle reduces to what the bare word reduces to (고양이가 →
 * 고양이 → 고양, and 고양이 → 고양). A particle leaves at least one syllable, an
 * ending at least two. Crude next to a morphological analyser, but the same on
 * both sides of the index, which is what matching needs.
 */
export function stemKorean(word: string): string {
  let w = word;
  for (let round = 0; round < 3; round++) {
    const ending = KO_ENDINGS.find((e) => w.length - e.length >= 2 && w.endsWith(e));
    const particle = ending ? undefined : KO_PARTICLES.find((p) => w.length - p.length >= 1 && w.endsWith(p));
    const cut = ending ?? particle;
    if (!cut) break;
    w = w.slice(0, w.length - cut.length);
  }
  return w;
}

/**
 * Stem one normalized word: Cyrillic with the Russian stemmer, Latin with the
 * English one (after folding diacritics, so `café` and `cafe` agree), Hangul by
 * stripping particles ({@link stemKorean}), anything else (digits, Chinese,
 * Japanese, Greek…) unchanged.
 */
export function stemWord(word: string): string {
  // One- and two-letter words are kept as they are: no stemmer changes them, and
  // skipping the cache lookup for them saves ~15% of the pipeline's time. (Not 3:
  // Porter maps "use"/"used" and "fly"/"flies" to one stem each.)
  if (word.length <= 2) return word;
  const cached = stemCache.get(word);
  if (cached !== undefined) return cached;
  const out = stemUncached(word);
  if (stemCache.size >= STEM_CACHE_LIMIT) stemCache.clear();
  stemCache.set(detached(word), detached(out));
  return out;
}

/**
 * `s` as a string of its own. V8 makes a substring of 13 or more characters a
 * view into the string it was cut from, so a word kept in the process-wide cache
 * kept the whole normalized text of its note alive (~8 MB of note texts in the
 * heap of a 100k-note build). A concatenation is flattened into a new string
 * before it is sliced, so the copy's parent is the word and one space.
 */
function detached(s: string): string {
  return s.length < 13 ? s : (s + ' ').slice(0, -1);
}

function stemUncached(word: string): string {
  let out = word;
  if (CYRILLIC.test(word)) out = stemRussian(word);
  else if (HANGUL.test(word)) out = stemKorean(word);
  else if (LATIN.test(word)) {
    const folded = LATIN_DIACRITIC.test(word) ? word.normalize('NFD').replace(/[\u0300-\u036f]/g, '').normalize('NFC') : word;
    out = /^[a-z]+$/.test(folded) ? stemEnglish(folded) : folded;
  }
  return out.length === 0 ? word : out;
}

/** Normalized words of a text (no stemming). */
export function textWords(text: string): string[] {
  return lineWords(normalizeText(text));
}

/** Stemmed tokens of a text, in order. */
export function textTokens(text: string): string[] {
  return textWords(text).map(stemWord);
}

/**
 * What goes into an FTS5 column: stemmed tokens separated by spaces. Each word
 * is looked up in the process-wide stem cache ({@link stemWord}) as it comes.
 * A per-note map in front of the cache (each distinct word of a note looked up
 * there once) cost more than it saved: a lookup in the small map for every
 * word, plus one in the cache for every word new to the note, is more work
 * than one cache lookup per word. Cold index of the 10k synthetic vault (one
 * thread, 5 interleaved pairs): 12.4 s vs 12.6 s CPU (median); the tokenizer
 * alone over the 10k vault's sections 0.73–0.76 s vs 0.88–0.94 s, over
 * frontend-vault-ru 0.24–0.26 s vs 0.29–0.46 s.
 */
export function indexText(text: string): string {
  return text === '' ? '' : indexWords(text).join(' ');
}

/**
 * {@link indexText}'s tokens as a list: {@link lineWords} then {@link stemWord}
 * on each, in one pass. A word is hashed while it is scanned and looked up in
 * {@link StemTable} by its place in the text, so a word seen before (most of
 * them) costs no substring and no string hash: 10k synthetic notes, the
 * non-CJK text, 0.75 s → ~0.4 s of CPU. Runs of CJK go through the segmenter and
 * {@link stemWord} as before. Its words are the table's own strings (whose
 * hashes V8 keeps: cheap to put in a Set).
 *
 * Its scanning loop repeats {@link lineWords}'s on purpose: folding the stem
 * lookup into that loop is the saving, and a shared callback per word would
 * cost it back. A property test holds the two to the same words
 * (test/unit/index/text-pipeline.test.ts).
 */
export function indexWords(text: string, stems?: number[]): string[] {
  if (text === '') return [];
  const norm = normalizeText(text);
  const clean = norm.includes('data:') ? norm.replace(DATA_URI, ' ') : norm;
  const out: string[] = [];
  const table = stemTable();
  const n = clean.length;
  let i = 0;
  while (i < n) {
    let c = clean.charCodeAt(i);
    let k = classOf(c);
    if (k === SEP) {
      i++;
      continue;
    }
    const start = i;
    if (k === CJK_CHAR) {
      while (i < n && classOf(clean.charCodeAt(i)) === CJK_CHAR) i++;
      for (const word of cjkRunTokens(clean.slice(start, i))) {
        out.push(word);
        stems?.push(-1);
      }
      continue;
    }
    let h = 0;
    while (i < n && (k = classOf((c = clean.charCodeAt(i)))) === WORD) {
      h = (Math.imul(h, 31) + c) | 0;
      i++;
    }
    if (i - start <= MAX_TOKEN_CHARS) {
      out.push(table.stem(clean, start, i, h));
      stems?.push(table.lastStem);
    }
  }
  return out;
}

/**
 * A token list of {@link indexWords} with the {@link StemTable} number of each
 * token's stem (-1: a CJK word, which is not in the table), taken with
 * {@link tokenList}.
 */
export interface TokenList {
  words: string[];
  stems: number[];
}

/** {@link indexWords} with the stem numbers that {@link distinctTokens} dedupes by. */
export function tokenList(text: string): TokenList {
  const stems: number[] = [];
  return { words: indexWords(text, stems), stems };
}

/** The stem table's generation now: {@link distinctTokens} needs the lists' stem numbers to be of the same one. */
export function tokenGeneration(): number {
  return stemTable().generation;
}

/**
 * The distinct tokens of `lists`, in order of first occurrence: what a `Set`
 * of every token gives, for less. A token of the stem table is checked by its
 * stem number's mark (a typed array read) instead of a hash lookup per token;
 * CJK words go through a small set. Lists taken before the table last started
 * over (`generation` is not the table's now: their numbers may name other
 * stems) are deduped with a plain set.
 */
export function distinctTokens(lists: readonly TokenList[], generation: number): string[] {
  const table = stemTable();
  if (generation !== table.generation) return [...new Set(lists.flatMap((l) => l.words))];
  const mark = table.nextMark();
  const out: string[] = [];
  let cjk: Set<string> | undefined;
  for (const { words, stems } of lists) {
    for (let k = 0; k < words.length; k++) {
      const stem = stems[k]!;
      if (stem >= 0) {
        if (table.marked(stem, mark)) continue;
      } else {
        cjk ??= new Set();
        if (cjk.has(words[k]!)) continue;
        cjk.add(words[k]!);
      }
      out.push(words[k]!);
    }
  }
  return out;
}

/**
 * Stems by the word's place in a text: an open-addressing table keyed by a hash
 * the scanner computes, checked against the word itself with `startsWith`.
 * Starts over when {@link STEM_CACHE_LIMIT} words are in it, like the stem cache.
 */
class StemTable {
  static readonly SLOTS = 1 << 17;
  #words: (string | undefined)[] = new Array(StemTable.SLOTS);
  #stems: string[] = new Array(StemTable.SLOTS);
  #hashes = new Int32Array(StemTable.SLOTS);
  /**
   * Per slot, the number of its word's stem: words with one stem ("state",
   * "states") share it. Numbered in order of first sight, from {@link #stemNumbers}.
   */
  #stemOf = new Int32Array(StemTable.SLOTS);
  #stemNumbers = new Map<string, number>();
  /** Per stem number, the last {@link distinctTokens} call that saw it. */
  #marks = new Int32Array(StemTable.SLOTS);
  #mark = 0;
  #size = 0;
  /** Bumped each time the table starts over (stem numbers then name other stems). */
  generation = 0;
  /** The stem number of the word {@link stem} last returned. */
  lastStem = -1;

  /** A mark no stem number holds yet. */
  nextMark(): number {
    if (this.#mark === 0x7fffffff) {
      this.#marks.fill(0);
      this.#mark = 0;
    }
    return ++this.#mark;
  }

  /** Whether stem number `stem` already holds `mark`; marks it either way. */
  marked(stem: number, mark: number): boolean {
    if (this.#marks[stem] === mark) return true;
    this.#marks[stem] = mark;
    return false;
  }

  stem(text: string, start: number, end: number, hash: number): string {
    const mask = StemTable.SLOTS - 1;
    const len = end - start;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const word = this.#words[slot];
      if (word === undefined) return this.#add(slot, text.slice(start, end), hash);
      if (this.#hashes[slot] === hash && word.length === len && text.startsWith(word, start)) {
        this.lastStem = this.#stemOf[slot]!;
        return this.#stems[slot]!;
      }
    }
  }

  #add(slot: number, word: string, hash: number): string {
    // Not stemWord: a word cached here needs no second copy in its cache.
    const stem = word.length <= 2 ? word : stemUncached(word);
    if (this.#size >= STEM_CACHE_LIMIT) {
      this.#words = new Array(StemTable.SLOTS);
      this.#stems = new Array(StemTable.SLOTS);
      this.#hashes.fill(0);
      this.#stemNumbers.clear();
      this.#size = 0;
      this.generation++;
      return this.#add(hash & (StemTable.SLOTS - 1), word, hash);
    }
    this.#words[slot] = detached(word);
    this.#stems[slot] = stem === word ? this.#words[slot]! : detached(stem);
    this.#hashes[slot] = hash;
    this.#size++;
    let number = this.#stemNumbers.get(this.#stems[slot]!);
    if (number === undefined) this.#stemNumbers.set(this.#stems[slot]!, (number = this.#stemNumbers.size));
    this.#stemOf[slot] = number;
    this.lastStem = number;
    return this.#stems[slot]!;
  }
}

/**
 * Made on first use: its typed arrays are ~2.5 MB, and only indexing stems
 * through it (a read verb's query goes through `stem`), so a search that
 * indexes nothing should not allocate and collect them.
 */
let sharedStemTable: StemTable | undefined;
function stemTable(): StemTable {
  return (sharedStemTable ??= new StemTable());
}
