// Edits config.yaml and .env for `gateway setup`, keeping the rest of the file and its comments intact.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument, YAMLMap } from 'yaml';
import { parseDotenv } from '@hookwise/gateway';

export interface SetupAnswers {
  /** Unset for a profile: the listener (enabled, port, host) is the whole gateway's, in the config dir's own file. */
  port?: number;
  host?: string;
  /** Stored in .env as WEBHOOK_SECRET (mode 0600), never in config.yaml. */
  secret: string;
}

export function generateSecret(): string {
  return randomBytes(32).toString('base64url');
}

export function readExistingSettings(configDir: string): { port?: number; host?: string; hasSecret: boolean } {
  const file = join(configDir, 'config.yaml');
  const env = existsSync(join(configDir, '.env')) ? parseDotenv(readFileSync(join(configDir, '.env'), 'utf8')) : {};
  if (!existsSync(file)) return { hasSecret: Boolean(env.WEBHOOK_SECRET) };
  const doc = parseDocument(readFileSync(file, 'utf8'));
  const port = doc.getIn(['platforms', 'webhook', 'extra', 'port']);
  const host = doc.getIn(['platforms', 'webhook', 'extra', 'host']);
  const secret = doc.getIn(['platforms', 'webhook', 'extra', 'secret']);
  return {
    port: typeof port === 'number' ? port : undefined,
    host: typeof host === 'string' ? host : undefined,
    hasSecret: Boolean(env.WEBHOOK_SECRET) || typeof secret === 'string',
  };
}

/** Sets or replaces KEY=value in a .env text, keeping every other line. */
export function setDotenvValue(text: string, key: string, value: string): string {
  const line = `${key}=${value}`;
  const pattern = new RegExp(`^(?:export\\s+)?${key}\\s*=.*$`, 'm');
  if (pattern.test(text)) return text.replace(pattern, line);
  return `${text}${text === '' || text.endsWith('\n') ? '' : '\n'}${line}\n`;
}

/** Writes the answers; returns the files it wrote. */
export function applySetup(configDir: string, answers: SetupAnswers): { configFile: string; envFile: string } {
  mkdirSync(configDir, { recursive: true });
  const configFile = join(configDir, 'config.yaml');
  const text = existsSync(configFile) ? readFileSync(configFile, 'utf8') : '# Hookwise configuration: see docs/configuration.md\n';
  const doc = parseDocument(text);
  if (doc.errors.length) throw new Error(`${configFile} does not parse, so setup will not touch it: ${doc.errors[0].message}`);
  if (!(doc.contents instanceof YAMLMap)) doc.contents = doc.createNode({}) as unknown as typeof doc.contents;
  if (answers.port !== undefined) {
    doc.setIn(['platforms', 'webhook', 'enabled'], true);
    doc.setIn(['platforms', 'webhook', 'extra', 'port'], answers.port);
    if (answers.host) doc.setIn(['platforms', 'webhook', 'extra', 'host'], answers.host);
  }
  // A secret already written in config.yaml would hide the .env one from readers; keep one source of truth. A
  // profile's config names it always: WEBHOOK_SECRET of the environment sets only the config dir's own secret.
  if (answers.port === undefined || doc.hasIn(['platforms', 'webhook', 'extra', 'secret']))
    doc.setIn(['platforms', 'webhook', 'extra', 'secret'], '${WEBHOOK_SECRET}');
  if (!doc.hasIn(['platforms', 'webhook', 'extra', 'routes'])) doc.setIn(['platforms', 'webhook', 'extra', 'routes'], doc.createNode({}));
  writeFileSync(configFile, doc.toString());

  const envFile = join(configDir, '.env');
  const envText = existsSync(envFile) ? readFileSync(envFile, 'utf8') : '';
  writeFileSync(envFile, setDotenvValue(envText, 'WEBHOOK_SECRET', answers.secret), { mode: 0o600 });
  chmodSync(envFile, 0o600);
  return { configFile, envFile };
}
