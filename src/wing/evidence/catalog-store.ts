import { VaultgateError } from '../../errors.js';
import { openStore, type StoreDb, type StoreSpec } from '../../store/index.js';
import type { AcceptedRecommendation, Catalog, Refusal } from './types.js';

type Env = Record<string, string | undefined>;

/**
 * Catalogs and the answers given to them, in `evidence.sqlite` under the data
 * root. A catalog is kept until it expires (its note texts then go); answers
 * are kept for the record, accepted or not: the latest accepted answer of a
 * catalog is what `plan` works from, a refused one is never planned from.
 */
const EVIDENCE_STORE: StoreSpec = {
  name: 'evidence',
  applicationId: 0x56474556, // 'VGEV'
  migrations: [
    `CREATE TABLE catalogs (
       id         TEXT PRIMARY KEY,
       created_at TEXT NOT NULL,
       expires_at TEXT NOT NULL,
       used_at    TEXT,                  -- when a plan from it became a proposal
       path_a     TEXT NOT NULL,
       path_b     TEXT NOT NULL,
       body       TEXT NOT NULL          -- the catalog JSON, as printed by relate prepare
     ) STRICT;
     CREATE INDEX catalogs_by_expiry ON catalogs(expires_at);
     CREATE TABLE answers (
       id           INTEGER PRIMARY KEY,
       catalog_id   TEXT NOT NULL,       -- no foreign key: the record outlives an expired catalog
       received_at  TEXT NOT NULL,
       source       TEXT NOT NULL,       -- 'file' | 'provider'
       provider     TEXT,                -- provider name and model, for 'provider'
       raw          TEXT NOT NULL,       -- the answer exactly as given (the model's message content)
       raw_response TEXT,                -- the provider's whole HTTP body
       accepted     INTEGER NOT NULL,    -- 1 when every recommendation was accepted
       refusals     TEXT NOT NULL,       -- JSON [Refusal]
       recommendations TEXT              -- JSON [AcceptedRecommendation] when accepted
     ) STRICT;
     CREATE INDEX answers_by_catalog ON answers(catalog_id, id);`,
  ],
};

export interface StoredAnswer {
  answer_id: number;
  catalog_id: string;
  received_at: string;
  source: 'file' | 'provider';
  accepted: boolean;
  refusals: Refusal[];
  recommendations: AcceptedRecommendation[] | null;
}

function withStore<T>(root: string, env: Env, use: (db: StoreDb) => T): T {
  const store = openStore(root, env, EVIDENCE_STORE)!;
  try {
    return use(store.db);
  } finally {
    store.db.close();
  }
}

/** Drop the bodies of expired catalogs (their note texts); their answers stay as the record. */
function pruneExpired(db: StoreDb, now: Date): void {
  db.prepare('DELETE FROM catalogs WHERE expires_at < ?').run(now.toISOString());
}

export function saveCatalog(root: string, env: Env, catalog: Catalog): void {
  withStore(root, env, (db) => {
    pruneExpired(db, new Date(catalog.created_at));
    db.prepare('INSERT INTO catalogs(id, created_at, expires_at, path_a, path_b, body) VALUES (?, ?, ?, ?, ?, ?)').run(
      catalog.catalog_id,
      catalog.created_at,
      catalog.expires_at,
      catalog.sides.A.path,
      catalog.sides.B.path,
      JSON.stringify(catalog),
    );
  });
}

/** A stored catalog; CATALOG_NOT_FOUND (exit 2) when the id is unknown or the catalog has expired. */
export function loadCatalog(root: string, env: Env, catalogId: string, now = new Date()): Catalog & { used_at: string | null } {
  const row = withStore(root, env, (db) => {
    pruneExpired(db, now);
    return db.prepare('SELECT body, used_at FROM catalogs WHERE id = ?').get(catalogId) as { body: string; used_at: string | null } | undefined;
  });
  if (!row) {
    throw new VaultgateError('CATALOG_NOT_FOUND', `no catalog ${JSON.stringify(catalogId)} (unknown, or expired)`, {
      details: { catalog_id: catalogId },
      hint: 'Prepare one with `vaultgate relate prepare A B`; catalogs expire after their ttl.',
    });
  }
  return { ...(JSON.parse(row.body) as Catalog), used_at: row.used_at };
}

export function markCatalogUsed(root: string, env: Env, catalogId: string, at = new Date()): void {
  withStore(root, env, (db) => db.prepare('UPDATE catalogs SET used_at = ? WHERE id = ? AND used_at IS NULL').run(at.toISOString(), catalogId));
}

export function saveAnswer(
  root: string,
  env: Env,
  a: { catalogId: string; source: 'file' | 'provider'; provider?: string; raw: string; rawResponse?: string; refusals: Refusal[]; recommendations: AcceptedRecommendation[] | null },
): number {
  return withStore(root, env, (db) =>
    Number(
      db
        .prepare('INSERT INTO answers(catalog_id, received_at, source, provider, raw, raw_response, accepted, refusals, recommendations) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)')
        .run(
          a.catalogId,
          new Date().toISOString(),
          a.source,
          a.provider ?? null,
          a.raw,
          a.rawResponse ?? null,
          a.refusals.length === 0 ? 1 : 0,
          JSON.stringify(a.refusals),
          a.recommendations && a.refusals.length === 0 ? JSON.stringify(a.recommendations) : null,
        ).lastInsertRowid,
    ),
  );
}

/** The latest accepted answer of a catalog (it replaces earlier ones), or null. */
export function latestAcceptedAnswer(root: string, env: Env, catalogId: string): StoredAnswer | null {
  const row = withStore(root, env, (db) =>
    db.prepare('SELECT * FROM answers WHERE catalog_id = ? AND accepted = 1 ORDER BY id DESC LIMIT 1').get(catalogId) as Record<string, unknown> | undefined,
  );
  if (!row) return null;
  return {
    answer_id: row.id as number,
    catalog_id: row.catalog_id as string,
    received_at: row.received_at as string,
    source: row.source as 'file' | 'provider',
    accepted: true,
    refusals: [],
    recommendations: JSON.parse(row.recommendations as string) as AcceptedRecommendation[],
  };
}
