import fs from 'node:fs';

/**
 * Filesystems whose changes a local file watcher (inotify, FSEvents) does not
 * see in full: a change made on another machine of a network filesystem, or
 * behind a FUSE driver, raises no event here. On them a watcher can only say
 * what *this* machine changed, so freshness must come from walking the vault.
 * Values are `statfs` f_type magic numbers (Linux `include/uapi/linux/magic.h`
 * and the filesystems' own sources).
 */
const UNWATCHABLE: ReadonlyMap<number, string> = new Map([
  [0x6969, 'nfs'],
  [0x517b, 'smb'],
  [0xff534d42, 'cifs'],
  [0xfe534d42, 'smb2'],
  [0x65735546, 'fuse'],
  [0x01021997, '9p'],
  [0x00c36400, 'ceph'],
  [0x5346414f, 'afs'],
  [0x73757245, 'coda'],
  [0x564c, 'ncp'],
  [0x7461636f, 'ocfs2'],
  [0x01161970, 'gfs2'],
  [0x0bd00bd0, 'lustre'],
  [0x47504653, 'gpfs'],
]);

/**
 * Why a file watcher cannot be trusted for this folder, or null when it can:
 * the folder is on a network or FUSE filesystem (by its statfs type), or the
 * platform has no statfs. Checked for the vault root only; a network mount
 * *inside* the vault is not detected (docs/internals/freshness.md says so).
 */
export function watchUnsoundReason(root: string): string | null {
  let type: number;
  try {
    type = Number(fs.statfsSync(root).type);
  } catch (e) {
    return `cannot tell the vault's filesystem (${(e as Error).message})`;
  }
  const name = UNWATCHABLE.get(type >>> 0);
  return name ? `the vault is on a ${name} filesystem, where changes made elsewhere raise no file events` : null;
}
