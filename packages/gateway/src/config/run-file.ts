// The running gateway's pid and address, in `<config_dir>/gateway.run.json` while `hookwise gateway run` serves:
// `hookwise webhook test` and `hookwise doctor` read the port from it (the config may say 8644 while the gateway
// was started with --port or WEBHOOK_PORT), and it is removed when the gateway stops.
import { readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const RUN_FILE_NAME = 'gateway.run.json';

export interface RunFile {
  pid: number;
  /** The address a local client reaches it at, e.g. http://127.0.0.1:8644 */
  url: string;
  host: string;
  port: number;
  started_at: string;
}

export function runFilePath(configDir: string): string {
  return join(configDir, RUN_FILE_NAME);
}

/** Writes the file whole (a reader never sees half of it). */
export function writeRunFile(configDir: string, content: RunFile): string {
  const file = runFilePath(configDir);
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(content, null, 2)}\n`);
  renameSync(temporary, file);
  return file;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, under another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The running gateway of this config dir, or undefined (no file, unreadable, or its process is gone: a crash). */
export function readRunFile(configDir: string): RunFile | undefined {
  let parsed: Partial<RunFile>;
  try {
    parsed = JSON.parse(readFileSync(runFilePath(configDir), 'utf8')) as Partial<RunFile>;
  } catch {
    return undefined;
  }
  if (typeof parsed.pid !== 'number' || typeof parsed.port !== 'number' || typeof parsed.url !== 'string') return undefined;
  return isAlive(parsed.pid) ? (parsed as RunFile) : undefined;
}

/** Removes the file if it is still this process's (another gateway on the same config dir may have replaced it). */
export function removeRunFile(configDir: string, pid = process.pid): void {
  try {
    const current = JSON.parse(readFileSync(runFilePath(configDir), 'utf8')) as Partial<RunFile>;
    if (current.pid === pid) unlinkSync(runFilePath(configDir));
  } catch {
    /* already gone, or never written */
  }
}
