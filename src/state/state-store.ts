import { openStore, type OpenStore, type StoreSpec } from '../store/index.js';

type Env = Record<string, string | undefined>;

/**
 * `state.sqlite` under the vault's data root: one row per session. Revisions
 * count per session (1, 2, 3, …); `meta` keeps the last revision of each
 * deleted session (`deleted:<session>`), so a session deleted and created again
 * never repeats a revision an agent may still hold (no ABA: a stale writer
 * stays stale). `meta.last_revision` is the store-wide counter of the first
 * version, kept so older stores open unchanged, no longer used.
 */
export const STATE_STORE: StoreSpec = {
  name: 'state',
  // 'VGST'
  applicationId: 0x56475354,
  migrations: [
    `CREATE TABLE sessions (
       session    TEXT PRIMARY KEY,
       revision   INTEGER NOT NULL CHECK (revision > 0),
       state      TEXT NOT NULL,
       bytes      INTEGER NOT NULL,
       created_at TEXT NOT NULL,
       updated_at TEXT NOT NULL
     ) STRICT;
     CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL) STRICT;
     INSERT INTO meta (key, value) VALUES ('last_revision', 0);`,
  ],
};

export function openStateStore(root: string, env: Env, opts: { readonly?: boolean } = {}): OpenStore | null {
  return openStore(root, env, STATE_STORE, opts);
}
