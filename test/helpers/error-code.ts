/** The `code` of what `f` throws ('no error' when it returns): for asserting typed errors in one line. */
export function errorCode(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    return (e as { code: string }).code;
  }
  return 'no error';
}
