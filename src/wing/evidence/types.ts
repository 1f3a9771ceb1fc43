import type { FragmentKind } from './fragments.js';
import type { RecommendationKind } from './answer-schema.js';

export const CATALOG_VERSION = 'vaultgate.catalog.v1';

export type Side = 'A' | 'B';

/** One fragment of a catalog: an exact substring of one side's note, cited by `id`. */
export interface Fragment {
  /** `<nonce>:<side>:<n>`, n counting from 0 per side in note order. */
  id: string;
  side: Side;
  kind: FragmentKind;
  heading_path: string[];
  /** 1-based inclusive lines in the note. */
  lines: [number, number];
  /** Half-open UTF-16 range into `sides[side].text`. */
  range: { start: number; end: number };
  text: string;
  /** The text occurs more than once in its note: listed, but a citation of it is refused. */
  ambiguous: boolean;
}

export interface CatalogSide {
  path: string;
  /** SHA-256 of the note's bytes when the catalog was prepared. */
  sha256: string;
  /** The whole note text (BOM stripped): never cut, whatever the fragment limit. */
  text: string;
}

export interface ChatMessage {
  role: 'system' | 'user';
  content: string;
}

/** An evidence catalog (`vaultgate relate prepare`), stored under the data root until it expires. */
export interface Catalog {
  catalog_id: string;
  /** Random per catalog: ids of another catalog never match this one. */
  nonce: string;
  version: typeof CATALOG_VERSION;
  created_at: string;
  expires_at: string;
  question: string;
  sides: { A: CatalogSide; B: CatalogSide };
  fragments: Fragment[];
  /** Fragments past the per-side limit, left out of `fragments` (the texts in `sides` stay whole). */
  fragments_omitted: { A: number; B: number };
  /** JSON Schema of the answer, with this catalog's ids as enums. */
  answer_schema: Record<string, unknown>;
  /** The exact prompt a model gets: system and user messages (the user message carries the schema, notes and fragments). */
  request: { messages: ChatMessage[] };
}

/** A cited fragment with the text the code put in (never the model). */
export interface CitedFragment {
  id: string;
  side: Side;
  heading_path: string[];
  lines: [number, number];
  text: string;
}

export interface AcceptedRecommendation {
  /** 0-based position in the answer's `recommendations`. */
  index: number;
  kind: RecommendationKind;
  claim: string;
  evidence_a: CitedFragment[];
  evidence_b: CitedFragment[];
  anchor: CitedFragment | null;
}

/** Why (part of) an answer was refused. `recommendation` is null for the document as a whole. */
export interface Refusal {
  code: RefusalCode;
  recommendation: number | null;
  /** The offending field (`evidence_a[2]`, `version`, `recommendations[0].quote`). */
  field?: string;
  /** The offending fragment id, when one is at fault. */
  id?: string;
  message: string;
}

export type RefusalCode =
  | 'too_large'
  | 'not_utf8'
  | 'not_json'
  | 'duplicate_key'
  | 'wrong_type'
  | 'extra_field'
  | 'missing_field'
  | 'wrong_version'
  | 'no_recommendations'
  | 'too_many'
  | 'unknown_kind'
  | 'empty_claim'
  | 'too_long'
  | 'empty_evidence'
  | 'unknown_id'
  | 'wrong_side'
  | 'duplicate_id'
  | 'ambiguous_fragment'
  | 'anchor_wrong_side'
  | 'anchor_not_allowed';

export interface ValidationResult {
  accepted: AcceptedRecommendation[];
  refusals: Refusal[];
  /** How many recommendations the answer held (0 when the document itself was refused). */
  total: number;
}
