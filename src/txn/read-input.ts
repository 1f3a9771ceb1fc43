import fs from 'node:fs';

/**
 * Reading a file someone named as input (a bundle, a `content_file`) without ever
 * hanging or reading without bound. The kind of file is decided on the open
 * descriptor (`fstat`), not on a `stat` of the path beforehand, so nothing can be
 * swapped in between: a FIFO would block an ordinary open and `/dev/zero` or
 * `/dev/urandom` never end. The open itself is non-blocking, so naming a FIFO
 * cannot hang it. A regular file is read with a bound even when it says its size
 * is 0 (files under `/proc` do).
 */
export type InputKind = 'file' | 'pipe' | 'other';

export interface InputRead {
  /** At most `limit + 1` bytes: more than `limit` means the input is over the limit. */
  bytes: Buffer;
  kind: InputKind;
}

const { O_RDONLY, O_NONBLOCK } = fs.constants;

/**
 * Read at most `limit + 1` bytes of `file`, a regular file. A FIFO, a device or
 * a socket returns its kind unread: a FIFO nobody writes into would block the
 * read forever (issue 20), and stdin has its own spelling, `-`, which every
 * caller reads from descriptor 0. Errors of the open (ENOENT, EACCES, EMFILE)
 * are thrown as they are.
 */
export function readInputFile(file: string, limit: number): InputRead {
  const fd = fs.openSync(file, O_RDONLY | O_NONBLOCK);
  try {
    const st = fs.fstatSync(fd);
    if (st.isFile()) return { bytes: readBounded(fd, limit), kind: 'file' };
    return { bytes: Buffer.alloc(0), kind: st.isFIFO() ? 'pipe' : 'other' };
  } finally {
    fs.closeSync(fd);
  }
}

/** Read an open descriptor to its end, but never more than `limit + 1` bytes (the caller reports "over the limit"). */
export function readBounded(fd: number, limit: number): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  const buf = Buffer.alloc(Math.min(1 << 20, limit + 1));
  for (;;) {
    let n: number;
    try {
      n = fs.readSync(fd, buf, 0, Math.min(buf.length, limit + 1 - total), null);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      // a non-blocking stdin (a terminal or socket its parent made so): wait a little, not a busy loop
      if (code === 'EAGAIN') {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
        continue;
      }
      if (code === 'EOF') break;
      throw e;
    }
    if (n === 0) break;
    chunks.push(Buffer.from(buf.subarray(0, n)));
    total += n;
    if (total > limit) break;
  }
  return Buffer.concat(chunks);
}
