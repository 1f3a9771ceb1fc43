/**
 * An enumerable property computed once, on first read: JSON output and object
 * spreads see a plain value. For a review's diffs (issue 20 §8): as large as the
 * change itself, needed to show a review but not to apply one.
 */
export function lazyProperty<T extends object, V>(o: T, key: string, make: () => V, opts: { keep?: boolean } = {}): void {
  let done = false;
  let value: V;
  Object.defineProperty(o, key, {
    enumerable: true,
    configurable: true,
    get: () => {
      // keep: false for a value cheap to make again from kept parts (a review's joined diff): not held twice
      if (opts.keep === false) return make();
      if (!done) (value = make()), (done = true);
      return value;
    },
  });
}
