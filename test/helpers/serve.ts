import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { CLI_BIN } from './run-cli.js';

/** A running `vaultgate serve` child and what it printed. */
export interface Served {
  child: ChildProcess;
  url: string;
  token: string;
  port: number;
  stderr: () => string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/** Start the compiled `vaultgate serve --port 0` and read its one JSON line. */
export function serve(root: string, home: string, extra: string[] = [], env: Record<string, string> = {}): Promise<Served> {
  const child = spawn(process.execPath, [CLI_BIN, 'serve', '--vault', root, '--port', '0', ...extra], {
    env: { ...process.env, VAULTGATE_HOME: home, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve printed no URL: ${stderr}`)), 30_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited ${code}: ${stdout}${stderr}`));
    });
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      const nl = stdout.indexOf('\n');
      if (nl < 0) return;
      clearTimeout(timer);
      const line = JSON.parse(stdout.slice(0, nl)) as { url: string; token: string; port: number };
      resolve({
        child,
        ...line,
        stderr: () => stderr,
        stop: () => {
          child.kill('SIGTERM');
          return exited;
        },
      });
    });
  });
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  json: any;
}

/** One HTTP request with exactly the headers given (fetch would not let a test forge Host). */
export function rawRequest(port: number, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers: { Host: `127.0.0.1:${port}`, ...headers } }, (res) => {
      let data = '';
      res.setEncoding('utf8').on('data', (d: string) => (data += d));
      res.on('end', () => {
        let json: any;
        try {
          json = JSON.parse(data);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: data, json });
      });
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}
