import fs from 'node:fs';

/**
 * Read a file descriptor to its end, but at most `limit + 1` bytes, so an endless
 * stdin (or `/dev/zero`) is refused by size rather than by memory: the caller
 * sees more than `limit` bytes and reports its own limit error.
 */
const PAUSE = new Int32Array(new SharedArrayBuffer(4));

export function readBounded(fd: number, limit: number): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  const buf = Buffer.alloc(1 << 20);
  for (;;) {
    let n: number;
    try {
      n = fs.readSync(fd, buf, 0, buf.length, null);
    } catch (e) {
      // A non-blocking stdin with nothing yet: wait a moment instead of spinning a core.
      if ((e as NodeJS.ErrnoException).code === 'EAGAIN') {
        Atomics.wait(PAUSE, 0, 0, 5);
        continue;
      }
      if ((e as NodeJS.ErrnoException).code === 'EOF') break;
      throw e;
    }
    if (n === 0) break;
    chunks.push(Buffer.from(buf.subarray(0, n)));
    total += n;
    if (total > limit) break;
  }
  return Buffer.concat(chunks);
}
