import fs from 'node:fs';
import path from 'node:path';
import { withFreshIndex } from '../src/index/index.js';
import { loadNoteVectors, openVectorStore, pairScore, refreshLsaVectors, DEFAULT_LSA_PARAMS } from '../src/similar/index.js';
import { splitOf } from './similar.js';
const data = JSON.parse(fs.readFileSync('eval/similar-pairs.json', 'utf8'));
const env = { ...process.env, VAULTGATE_HOME: '/tmp/vg-sim-P4vDp7' };
const rows: any[] = [];
for (const c of ['kepano-obsidian', 'vaultofknowledge', 'openbox-ru', 'frontend-vault-ru']) {
  const root = path.resolve('../shared/corpora', c, 'vault');
  withFreshIndex(root, env, (h) => { const store = openVectorStore(root, env); const r = refreshLsaVectors(h.db, store, { params: DEFAULT_LSA_PARAMS }); const v = loadNoteVectors(store, 'lsa', r.model); store.close();
    for (const p of data.pairs.filter((p: any) => p.corpus === c && splitOf(p.id) === 'dev')) { const s = pairScore(v.get(p.a)!, v.get(p.b)!); rows.push({ kind: p.kind, label: p.label, same: path.basename(p.a).toLowerCase() === path.basename(p.b).toLowerCase(), score: s.score, dense: s.parts.dense }); } });
}
const by = (k: string) => rows.filter((r) => r.kind === k).map((r) => `${r.score.toFixed(2)}/${r.dense.toFixed(2)}${r.same ? 's' : ''}`).sort().join(' ');
for (const k of ['duplicate', 'same_name', 'same_topic', 'elaborates', 'same_template', 'same_folder']) console.log(k.padEnd(14), by(k));
