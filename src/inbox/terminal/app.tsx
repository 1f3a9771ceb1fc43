import { Box, render, Text, useInput, type Key as InkKey } from 'ink';
import { useCallback, useEffect, useState } from 'react';
import type { InboxController } from './controller.js';
import type { Tone } from './format.js';
import { keysFromInk } from './keys.js';
import type { InboxState } from './model.js';
import { frame, type Segment } from './screen.js';

/**
 * The Ink layer: draws the frame screen.ts computes and turns key presses into
 * messages. Loaded only by `vaultgate inbox` (ink and react cost ~300 ms to
 * load; no other verb pays it).
 */

/** How often the lists reload, so proposals agents make meanwhile appear. */
const TICK_MS = 3000;
/** The alternate screen: the inbox takes the whole terminal and gives the shell's screen back as it was. */
const ENTER_ALT_SCREEN = '\x1b[?1049h\x1b[H';
const LEAVE_ALT_SCREEN = '\x1b[?1049l';

const STYLE: Record<Tone, { color?: string; dimColor?: boolean; bold?: boolean }> = {
  plain: {},
  dim: { dimColor: true },
  good: { color: 'green' },
  bad: { color: 'red' },
  warn: { color: 'yellow' },
  info: { color: 'cyan' },
  accent: { color: 'magenta' },
  add: { color: 'green' },
  del: { color: 'red' },
  hunk: { color: 'cyan' },
  file: { color: 'yellow', bold: true },
  title: { color: 'blue' },
};

function SegmentText({ s }: { s: Segment }) {
  const st = STYLE[s.tone];
  return (
    <Text color={st.color} dimColor={st.dimColor} bold={s.bold ?? st.bold} inverse={s.inverse}>
      {s.text}
    </Text>
  );
}

export function Frame({ state }: { state: InboxState }) {
  return (
    <Box flexDirection="column">
      {frame(state).map((line, i) => (
        <Text key={i} wrap="truncate">
          {line.map((s, j) => (
            <SegmentText key={j} s={s} />
          ))}
        </Text>
      ))}
    </Box>
  );
}

function InboxApp({ controller }: { controller: InboxController }) {
  const [state, setState] = useState(controller.state);
  useEffect(() => controller.subscribe(setState), [controller]);
  const onInput = useCallback(
    (input: string, key: InkKey) => {
      for (const k of keysFromInk(input, key)) controller.dispatch({ type: 'key', key: k });
    },
    [controller],
  );
  useInput(onInput);
  return <Frame state={state} />;
}

/** Run the inbox on a terminal until the person quits; the terminal is restored whatever happens. */
export async function runInk(controller: InboxController, io: { stdin: NodeJS.ReadStream; stdout: NodeJS.WriteStream }): Promise<void> {
  const { stdin, stdout } = io;
  const onResize = () => controller.dispatch({ type: 'resize', rows: stdout.rows, cols: stdout.columns });
  const tick = setInterval(() => controller.dispatch({ type: 'tick', now: Date.now() }), TICK_MS);
  // should the process die before the finally below (an uncaught exception), still give the shell its screen back
  const onExit = () => stdout.write(LEAVE_ALT_SCREEN);
  process.once('exit', onExit);
  stdout.write(ENTER_ALT_SCREEN);
  stdout.on('resize', onResize);
  const app = render(<InboxApp controller={controller} />, { stdin, stdout, exitOnCtrlC: false, patchConsole: true });
  try {
    // a render that throws ends Ink (waitUntilExit rejects): the inbox ends with it instead of hanging
    await Promise.race([controller.closed, app.waitUntilExit()]);
  } finally {
    clearInterval(tick);
    stdout.off('resize', onResize);
    app.unmount();
    app.cleanup();
    stdout.write(LEAVE_ALT_SCREEN);
    process.off('exit', onExit);
  }
}
