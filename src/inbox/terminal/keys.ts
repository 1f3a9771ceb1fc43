/**
 * Keys as the inbox's model reads them, independent of the terminal library:
 * a typed character, a named key, or a control chord. Ink hands over a pasted
 * or fast-typed run of characters as one string (`jjj`); it becomes one key per
 * character, so three `j`s move three rows whether typed or pasted.
 */
export type Key =
  | { kind: 'char'; char: string }
  | { kind: 'named'; name: NamedKey }
  | { kind: 'ctrl'; char: string };

export type NamedKey = 'up' | 'down' | 'left' | 'right' | 'pageup' | 'pagedown' | 'home' | 'end' | 'enter' | 'escape' | 'tab' | 'backspace' | 'delete';

/** The fields of Ink's `Key` this reads (kept structural, so tests need no Ink). */
export interface InkKeyFlags {
  upArrow: boolean;
  downArrow: boolean;
  leftArrow: boolean;
  rightArrow: boolean;
  pageUp: boolean;
  pageDown: boolean;
  home: boolean;
  end: boolean;
  return: boolean;
  escape: boolean;
  tab: boolean;
  backspace: boolean;
  delete: boolean;
  ctrl: boolean;
  meta: boolean;
  shift: boolean;
}

const NAMED: ReadonlyArray<[keyof InkKeyFlags, NamedKey]> = [
  ['upArrow', 'up'],
  ['downArrow', 'down'],
  ['leftArrow', 'left'],
  ['rightArrow', 'right'],
  ['pageUp', 'pageup'],
  ['pageDown', 'pagedown'],
  ['home', 'home'],
  ['end', 'end'],
  ['return', 'enter'],
  ['tab', 'tab'],
  ['backspace', 'backspace'],
  ['delete', 'delete'],
  ['escape', 'escape'],
];

export function keysFromInk(input: string, key: InkKeyFlags): Key[] {
  for (const [flag, name] of NAMED) {
    // shift-tab arrives as tab with shift; it is still "switch tab"
    if (key[flag]) return [{ kind: 'named', name }];
  }
  if (key.ctrl && input.length > 0) return [{ kind: 'ctrl', char: input.toLowerCase() }];
  // Terminals send Backspace as DEL (0x7f); some send Ctrl-H (0x08).
  return [...input].map((ch): Key => (ch === '\x7f' || ch === '\b' ? { kind: 'named', name: 'backspace' } : ch === '\r' || ch === '\n' ? { kind: 'named', name: 'enter' } : { kind: 'char', char: ch }));
}
