// Shared by the sandbox tests: real processes, real servers on 127.0.0.1 port 0, temp dirs removed after.
import http from 'node:http';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { SandboxRun } from '../src';

export interface Served {
  port: number;
  /** Request lines (method and path) the server received. */
  requests: string[];
  close(): Promise<void>;
}

/** An HTTP server on 127.0.0.1 that answers `<name> saw <path>` and records each request. */
export async function serve(name: string, host = '127.0.0.1'): Promise<Served> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    res.end(`${name} saw ${req.url}`);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `hw-sbx-${prefix}-`));
}

export interface Outcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `sh -c script` in the run and collects its output (fails the test after 15 s). */
export function runShell(run: SandboxRun, script: string, env: NodeJS.ProcessEnv = { PATH: '/usr/local/bin:/usr/bin:/bin' }): Promise<Outcome> {
  const child = run.spawn('sh', ['-c', script], env);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => (stdout += chunk));
  child.stderr?.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no exit in 15 s; stdout ${stdout} stderr ${stderr}`)), 15_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** A node one-liner (run with `node -e`) that GETs `url`, through $HTTP_PROXY when it is set, and prints the status and body or the error. */
export function fetchScript(url: string): string {
  return [
    "const http=require('http');",
    'const p=process.env.HTTP_PROXY?new URL(process.env.HTTP_PROXY):null;',
    `const u=new URL(${JSON.stringify(url)});`,
    'const o=p?{host:p.hostname,port:p.port,path:u.href}:{host:u.hostname,port:u.port,path:u.pathname+u.search};',
    "http.get(o,r=>{let b='';r.on('data',d=>b+=d);r.on('end',()=>console.log('STATUS',r.statusCode,b.trim()))}).on('error',e=>console.log('ERROR',e.code||e.message));",
  ].join('');
}

/** Single-quotes a string for sh. */
export function shq(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

/** Host pids whose command line contains `marker` (read from /proc; no process-name matching). */
export function pidsWith(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(marker)) found.push(Number(entry));
    } catch {
      /* gone meanwhile */
    }
  }
  return found.filter((pid) => pid !== process.pid);
}
