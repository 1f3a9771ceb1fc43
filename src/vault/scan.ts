import fs from 'node:fs';

/** One file of the vault as the scanner saw it. */
export interface VaultFile {
  /** Canonical vault-relative path: `/`-separated, NFC. */
  path: string;
  /** The path as stored on disk (differs from `path` only for non-NFC names). */
  diskPath: string;
  /** Size in bytes. */
  size: number;
  /** Modification time in milliseconds (fractional: sub-millisecond changes still differ). */
  mtimeMs: number;
  /**
   * Status-change time (ms), inode and device: with size and mtime, the
   * unchanged-file test. mtime can be put back (`touch -r`, `cp -p`, `rsync -t`,
   * sync clients); ctime cannot from user space (every write and every utimes
   * sets it to now), and a file copied or renamed over the note has another
   * inode. See docs/internals/freshness.md for where they still cannot tell.
   */
  ctimeMs: number;
  ino: number;
  dev: number;
  /** Lower-cased extension without the dot (`md`, `png`, `canvas`), or `''`. */
  ext: string;
}

export interface ScanWarning {
  path: string;
  code: 'SYMLINK_SKIPPED' | 'UNREADABLE' | 'SPECIAL_FILE_SKIPPED';
  message: string;
}

export interface ScanResult {
  files: VaultFile[];
  warnings: ScanWarning[];
}

/**
 * A folder as the last walk saw it, kept by the caller (the index) so the next
 * walk can skip reading it again ({@link statWalk}). Names are as on disk.
 */
export interface DirRecord {
  /** mtime (ms) and inode of the folder when it was read. */
  m: number;
  i: number;
  /** 1 when its mtime was old enough at read time for a later change to move it (see {@link RACY_MS}). */
  t: 0 | 1;
  /** Regular files, sorted. */
  f: string[];
  /** Sub-folders (not dot-folders, not symlinks), sorted. */
  d: string[];
  /** Entries reported as warnings: [name, code, message]. */
  o: [string, ScanWarning['code'], string][];
  /** Hash of the names, so the walk's digest changes when a folder's entries do. */
  h: number;
}

/** The folders of a vault by disk path relative to the root ('' is the root). */
export interface ScanTree {
  v: 1;
  dirs: Record<string, DirRecord>;
}

export interface StatWalk {
  /** Hash of every folder's entries and every file's size, mtime, ctime, inode and device, in walk order. Equal digests: nothing changed. */
  digest: string;
  /** The tree as seen now (to store for the next walk); `previous` itself when no folder was read again. */
  tree: ScanTree;
  /**
   * Whether the tree differs from `previous` (a folder's entries, mtime, inode or
   * trust changed, or there was no previous tree): worth storing for the next walk.
   */
  treeChanged: boolean;
  /** Folders read again (their record changed or could not be trusted); the rest came from `previous`. */
  foldersRead: number;
  /** Files seen. */
  count: number;
  warnings: ScanWarning[];
  /** The files as {@link VaultFile} records, sorted by path: built on demand (only a refresh that has work needs them). */
  files(): VaultFile[];
}

/**
 * A folder whose mtime was less than this old when it was read is read again
 * next time: on a filesystem with coarse timestamps (FAT: 2 s, HFS+: 1 s) an entry
 * added in the same tick as the read would leave the mtime unchanged (git's
 * "racy" index entries, same cure).
 */
export const RACY_MS = 2500;

const NON_ASCII = /[^\x00-\x7f]/;
const nfc = (s: string) => (NON_ASCII.test(s) ? s.normalize('NFC') : s);

/** FNV-1a over 32-bit words, two lanes: a 64-bit digest with no allocation per file. */
const words = new Float64Array(1);
const wordsU32 = new Uint32Array(words.buffer);

/**
 * Walk the vault as Obsidian sees it: every file, skipping dot-files and
 * dot-folders (`.obsidian`, `.trash`, `.git`, `.vaultgate` — Obsidian ignores
 * them all) and never following a symlink; every file is lstat'ed.
 *
 * With the `previous` tree, a folder whose mtime and inode are those recorded
 * (and were trusted, see {@link RACY_MS}) is not read again: its entries are the
 * recorded ones. That is sound wherever adding, removing or renaming an entry
 * updates the folder's mtime (POSIX local filesystems); a file's content change
 * does not, which is why every file is still lstat'ed. It is unsound where folder
 * mtimes are not kept or not propagated: some network filesystems (NFS attribute
 * caches, SMB), FUSE and cloud-sync mounts, and clocks skewed between the machine
 * and a file server; `trustDirMtime: false` (VAULTGATE_SCAN_TRUST_DIR_MTIME=0)
 * reads every folder.
 *
 * Cheap by design, since every read runs it: plain string paths (no path.join),
 * NFC normalisation only of non-ASCII names, number stats (not BigInt: ~15% less
 * time and garbage), and no record per file unless {@link StatWalk.files} is called.
 */
export function statWalk(root: string, previous: ScanTree | null = null, opts: { trustDirMtime?: boolean } = {}): StatWalk {
  const trusted = opts.trustDirMtime !== false ? previous : null;
  try {
    return walkOnce(root, trusted);
  } catch (e) {
    // A recorded entry vanished or changed type under a trusted folder record (a
    // race with a writer): walk again reading every folder.
    if (e !== STALE_RECORD) throw e;
    return walkOnce(root, null);
  }
}

const STALE_RECORD = new Error('stale folder record');

function walkOnce(root: string, previous: ScanTree | null): StatWalk {
  const dirs: Record<string, DirRecord> = {};
  const warnings: ScanWarning[] = [];
  let treeChanged = previous === null;
  let foldersRead = 0;
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193;
  const mix = (x: number) => {
    h1 = Math.imul(h1 ^ x, 0x01000193) >>> 0;
    h2 = Math.imul(h2 ^ x, 0x5bd1e995) >>> 0;
  };
  const mixNumber = (x: number) => {
    words[0] = x;
    mix(wordsU32[0]!);
    mix(wordsU32[1]!);
  };
  // Per file, in walk order: its folder (an index into `rels`), its name (the
  // folder record's own string), size, mtime, ctime, inode and device. Records are built only on
  // demand, and no path is kept: at 100k notes the absolute paths were 11 MB held
  // through the whole refresh.
  const rels: string[] = [];
  const fileDir: number[] = [];
  const fileName: string[] = [];
  const sizes: number[] = [];
  const mtimes: number[] = [];
  const ctimes: number[] = [];
  const inos: number[] = [];
  const devs: number[] = [];
  const rootPrefix = root.endsWith('/') ? root : `${root}/`;

  const walk = (rel: string) => {
    const dirAbs = rel === '' ? root : rootPrefix + rel;
    const old = previous?.dirs[rel];
    let rec = trustedRecord(old, dirAbs);
    if (rec === null) {
      foldersRead++;
      rec = readDir(rel, dirAbs, warnings);
      if (rec === null) {
        if (old) treeChanged = true;
        return;
      }
      if (!old || old.m !== rec.m || old.i !== rec.i || old.t !== rec.t || old.h !== rec.h || old.o.length !== rec.o.length) treeChanged = true;
    }
    dirs[rel] = rec;
    mix(rec.h);
    const dirIndex = rels.push(rel) - 1;
    const prefix = rel === '' ? rootPrefix : `${dirAbs}/`;
    for (const name of rec.f) {
      const p = prefix + name;
      let st: fs.Stats;
      try {
        st = fs.lstatSync(p);
      } catch (e) {
        if (rec === old) throw STALE_RECORD;
        warnings.push({ path: nfc(rel === '' ? name : `${rel}/${name}`), code: 'UNREADABLE', message: (e as Error).message });
        continue;
      }
      if (!st.isFile()) {
        if (rec === old) throw STALE_RECORD;
        continue;
      }
      fileDir.push(dirIndex);
      fileName.push(name);
      sizes.push(st.size);
      mtimes.push(st.mtimeMs);
      ctimes.push(st.ctimeMs);
      inos.push(st.ino);
      devs.push(st.dev);
      mixNumber(st.size);
      mixNumber(st.mtimeMs);
      mixNumber(st.ctimeMs);
      mixNumber(st.ino);
      mixNumber(st.dev);
    }
    for (const [name, code, message] of rec.o) warnings.push({ path: nfc(rel === '' ? name : `${rel}/${name}`), code, message });
    for (const name of rec.d) walk(rel === '' ? name : `${rel}/${name}`);
  };
  walk('');

  const tree: ScanTree = !treeChanged && previous ? previous : { v: 1, dirs };
  const columns: FileColumns = { rels, fileDir, fileName, sizes, mtimes, ctimes, inos, devs };
  return {
    digest: `${h1.toString(16).padStart(8, '0')}${h2.toString(16).padStart(8, '0')}-${fileName.length}`,
    tree,
    treeChanged,
    foldersRead,
    count: fileName.length,
    warnings,
    files() {
      return vaultFiles(columns);
    },
  };
}

/**
 * A folder's record from the last walk, when it can be trusted without reading
 * the folder: a folder record (t 1) whose folder still has the same mtime and
 * inode. Null: read the folder.
 */
function trustedRecord(old: DirRecord | undefined, dirAbs: string): DirRecord | null {
  if (!old || old.t !== 1) return null;
  let st: fs.Stats | undefined;
  try {
    st = fs.lstatSync(dirAbs);
  } catch {
    st = undefined;
  }
  return st && st.isDirectory() && st.mtimeMs === old.m && st.ino === old.i ? old : null;
}

/** The walk's files as columns, one entry per file in walk order (see walkOnce: no record or path is kept until asked for). */
interface FileColumns {
  rels: string[];
  /** Per file, an index into `rels`. */
  fileDir: number[];
  fileName: string[];
  sizes: number[];
  mtimes: number[];
  ctimes: number[];
  inos: number[];
  devs: number[];
}

/** The walk's file records, built on demand from its columns, sorted by path. */
function vaultFiles(c: FileColumns): VaultFile[] {
  const { rels, fileDir, fileName, sizes, mtimes, ctimes, inos, devs } = c;
  const out: VaultFile[] = new Array(fileName.length);
  for (let k = 0; k < fileName.length; k++) {
    const rel = rels[fileDir[k]!]!;
    const diskPath = rel === '' ? fileName[k]! : `${rel}/${fileName[k]!}`;
    const slash = diskPath.lastIndexOf('/');
    const dot = diskPath.lastIndexOf('.');
    const ext = dot > slash + 1 ? diskPath.slice(dot + 1).toLowerCase() : '';
    // One 'md' for every note rather than a 2-character string each (~2 MB at 100k notes).
    out[k] = { path: nfc(diskPath), diskPath, size: sizes[k]!, mtimeMs: mtimes[k]!, ctimeMs: ctimes[k]!, ino: inos[k]!, dev: devs[k]!, ext: ext === 'md' ? 'md' : ext };
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Read one folder: its entries by kind, sorted, and whether its mtime can be trusted next time. */
function readDir(rel: string, dirAbs: string, warnings: ScanWarning[]): DirRecord | null {
  let entries: fs.Dirent[];
  let st: fs.Stats;
  const started = Date.now();
  try {
    // The stat first: an entry added between the two calls then changes the mtime seen next time.
    st = fs.lstatSync(dirAbs);
    entries = fs.readdirSync(dirAbs, { withFileTypes: true });
  } catch (e) {
    warnings.push({ path: nfc(rel), code: 'UNREADABLE', message: (e as Error).message });
    return null;
  }
  const rec: DirRecord = { m: st.mtimeMs, i: st.ino, t: st.mtimeMs < started - RACY_MS ? 1 : 0, f: [], d: [], o: [], h: 0 };
  for (const entry of entries) {
    const name = entry.name;
    if (name.startsWith('.')) continue;
    if (entry.isSymbolicLink()) rec.o.push([name, 'SYMLINK_SKIPPED', 'symbolic link not followed']);
    else if (entry.isDirectory()) rec.d.push(name);
    else if (entry.isFile()) rec.f.push(name);
    else rec.o.push([name, 'SPECIAL_FILE_SKIPPED', 'not a regular file']);
  }
  const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  rec.f.sort(byName);
  rec.d.sort(byName);
  rec.o.sort((a, b) => byName(a[0], b[0]));
  let nh = 0x811c9dc5;
  for (const list of [rec.f, rec.d, rec.o.map((o) => o[0])]) {
    for (const name of list) {
      for (let k = 0; k < name.length; k++) nh = Math.imul(nh ^ name.charCodeAt(k), 0x01000193) >>> 0;
      nh = Math.imul(nh ^ 0x2f, 0x01000193) >>> 0;
    }
    nh = Math.imul(nh ^ 0x7c, 0x01000193) >>> 0;
  }
  rec.h = nh;
  return rec;
}

/** Every file of the vault, sorted by path, and what was skipped: {@link statWalk} without a previous tree. */
export function scanVault(root: string): ScanResult {
  const walk = statWalk(root);
  return { files: walk.files(), warnings: walk.warnings };
}

/** Markdown notes are `.md` files (Obsidian's notes); everything else is an attachment. */
export function isMarkdownPath(p: string): boolean {
  return p.toLowerCase().endsWith('.md');
}
