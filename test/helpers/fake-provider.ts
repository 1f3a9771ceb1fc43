import http from 'node:http';
import os from 'node:os';
import type { AddressInfo } from 'node:net';

/** One request the fake provider received: exactly the bytes sent. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  json: any;
}

export interface FakeReply {
  /** Never answer (the connection stays open until the server closes). */
  hang?: boolean;
  status?: number;
  /** An object is sent as JSON; a string as is. */
  body: unknown;
}

export interface FakeProvider {
  /** `http://host:port` */
  url: string;
  requests: ReceivedRequest[];
  /** What the next requests get (a queue; the last entry repeats). */
  reply(...replies: Array<FakeReply | ((req: ReceivedRequest) => FakeReply)>): void;
  close(): Promise<void>;
}

/**
 * A local HTTP server standing in for Ollama or an OpenAI-compatible endpoint,
 * started inside the test. It records every request and answers from a queue,
 * so a test can script good, malformed and hostile answers.
 */
export async function startFakeProvider(host = '127.0.0.1'): Promise<FakeProvider> {
  const requests: ReceivedRequest[] = [];
  let queue: Array<FakeReply | ((req: ReceivedRequest) => FakeReply)> = [{ status: 500, body: 'no reply scripted' }];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: any;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      const received: ReceivedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, json };
      requests.push(received);
      const next = queue.length > 1 ? queue.shift()! : queue[0]!;
      const reply = typeof next === 'function' ? next(received) : next;
      if (reply.hang) return;
      const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json' });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    requests,
    reply: (...replies) => {
      queue = replies;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * An address of this machine that is not loopback (the first external IPv4
 * interface), so a fake provider bound there is reached through a URL the
 * consent rule must treat as remote; null on a machine without one.
 */
export function externalAddress(): string | null {
  for (const list of Object.values(os.networkInterfaces())) for (const i of list ?? []) if (i.family === 'IPv4' && !i.internal) return i.address;
  return null;
}

/**
 * The URL of a fake provider on 127.0.0.1 as the consent rule must see a
 * provider that is not on this machine: `http://0.0.0.0:PORT`. The rule never
 * counts 0.0.0.0 as loopback (providers/loopback.ts), and the kernel delivers a
 * connection to 0.0.0.0 to the loopback interface, so a test using it sends no
 * byte to any non-loopback address (unlike {@link externalAddress}).
 */
export function offMachineUrl(p: FakeProvider): string {
  const u = new URL(p.url);
  if (u.hostname !== '127.0.0.1') throw new Error(`offMachineUrl needs a provider on 127.0.0.1, not ${u.hostname}`);
  u.hostname = '0.0.0.0';
  return u.origin;
}

/** Ollama's `/api/chat` reply carrying `content`. */
export const ollamaChat = (content: string): FakeReply => ({ body: { model: 'm', message: { role: 'assistant', content }, done: true } });
/** OpenAI's `/chat/completions` reply carrying `content`. */
export const openaiChat = (content: string): FakeReply => ({ body: { id: 'x', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] } });

/** A deterministic toy embedding: the letter counts of a text, so texts that share letters get close vectors. */
export function letterEmbedding(text: string): number[] {
  const v = new Array<number>(26).fill(0);
  for (const c of text.toLowerCase()) if (c >= 'a' && c <= 'z') v[c.charCodeAt(0) - 97]!++;
  return v;
}
