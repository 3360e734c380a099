import { mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { HookwiseError } from '@hookwise/core';
import { createLogger, createSubscriptionSource, readSubscriptions, updateSubscriptions, type SubscriptionEntry } from '@hookwise/gateway';
import { subscriptionsPath } from '../../src/routes/subscriptions';

interface LogLine {
  level: string;
  message: string;
}

function capturingLogger(): { logger: ReturnType<typeof createLogger>; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line) as LogLine);
      done();
    },
  });
  return { logger: createLogger({ level: 'debug', format: 'json', stream }), lines };
}

function entry(overrides: Partial<SubscriptionEntry> = {}): SubscriptionEntry {
  return {
    description: 'test',
    events: [],
    secret: 'a-long-enough-secret',
    skills: [],
    deliver: 'log',
    deliver_extra: {},
    created_at: '2024-01-01T00:00:00.000Z',
    updated_at: '2024-01-01T00:00:00.000Z',
    ...overrides,
  };
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hookwise-subs-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function writeEntries(entries: unknown): void {
  writeFileSync(subscriptionsPath(dir), JSON.stringify(entries, null, 2));
}

describe('SubscriptionSource', () => {
  it('has no routes while the file does not exist', () => {
    const { logger, lines } = capturingLogger();
    const source = createSubscriptionSource({ configDir: dir, logger });
    expect(source.current().size).toBe(0);
    expect(lines).toEqual([]);
  });

  it('picks up a new subscription on the next call, without being recreated', () => {
    const { logger } = capturingLogger();
    const source = createSubscriptionSource({ configDir: dir, logger });
    expect(source.current().has('ci')).toBe(false);
    writeEntries({ ci: entry({ events: ['push'], deliver_extra: { chat_id: '42' } }) });
    const route = source.current().get('ci');
    expect(route).toMatchObject({
      name: 'ci',
      origin: 'subscription',
      events: ['push'],
      secret: 'a-long-enough-secret',
      deliver: 'log',
      deliverExtra: { chat_id: '42' },
    });
  });

  it('does not re-read the file while its mtime, size and inode stay the same', () => {
    const { logger } = capturingLogger();
    const source = createSubscriptionSource({ configDir: dir, logger });
    writeEntries({ aa: entry() });
    // Whole seconds, so that putting the mtime back is exact.
    const mtime = new Date('2024-01-01T00:00:00Z');
    utimesSync(subscriptionsPath(dir), mtime, mtime);
    expect([...source.current().keys()]).toEqual(['aa']);
    // Same length, same inode, mtime put back: the source must keep what it has.
    writeFileSync(subscriptionsPath(dir), readFileSync(subscriptionsPath(dir), 'utf8').replace('"aa"', '"bb"'));
    utimesSync(subscriptionsPath(dir), mtime, mtime);
    expect([...source.current().keys()]).toEqual(['aa']);
    // A real change (new mtime) is seen.
    const later = new Date('2024-01-01T00:00:05Z');
    utimesSync(subscriptionsPath(dir), later, later);
    expect([...source.current().keys()]).toEqual(['bb']);
  });

  it('skips an invalid entry with a warning naming it and serves the valid ones', () => {
    const { logger, lines } = capturingLogger();
    writeEntries({
      good: entry(),
      'Bad Name': entry(),
      wrongtype: { ...entry(), events: 'push' },
      extrakey: { ...entry(), colour: 'red' },
    });
    const source = createSubscriptionSource({ configDir: dir, logger });
    expect([...source.current().keys()]).toEqual(['good']);
    const warnings = lines.filter((l) => l.level === 'warn').map((l) => l.message);
    expect(warnings).toHaveLength(3);
    expect(warnings.join('\n')).toMatch(/subscription 'Bad Name'.*invalid route name/);
    expect(warnings.join('\n')).toMatch(/subscription 'wrongtype'.*events: must be array/);
    expect(warnings.join('\n')).toMatch(/subscription 'extrakey'.*unknown key 'colour'/);
    expect(warnings.join('\n')).not.toContain('a-long-enough-secret');
    // Asking again does not repeat the warnings.
    source.current();
    expect(lines.filter((l) => l.level === 'warn')).toHaveLength(3);
  });

  it('skips an entry whose filter the schema accepts but that does not compile, naming the test', () => {
    const { logger, lines } = capturingLogger();
    writeEntries({
      filtered: entry({ filter: [{ path: 'action', in: ['opened', 'synchronize'] }] }),
      twoops: entry({ filter: { path: 'action', equals: 'opened', not_equals: 'closed' } }),
      badjsonata: entry({ filter: [{ path: 'action', exists: true }, { expression: 'action = (' }] }),
    });
    const source = createSubscriptionSource({ configDir: dir, logger });
    expect([...source.current().keys()]).toEqual(['filtered']);
    const warnings = lines.filter((l) => l.level === 'warn').map((l) => l.message);
    expect(warnings.join('\n')).toContain(
      "subscription 'twoops' filter: a test takes exactly one of equals, not_equals, in, not_in, matches, exists, contains, missing, in_file (it has equals and not_equals)",
    );
    expect(warnings.join('\n')).toMatch(/subscription 'badjsonata' filter\[1\]: the JSONata expression "action = \(" does not parse at position \d+/);
  });

  it('skips an entry without any secret, and uses the global secret when there is one', () => {
    const { logger, lines } = capturingLogger();
    writeEntries({ nosecret: { ...entry(), secret: undefined } });
    expect(createSubscriptionSource({ configDir: dir, logger }).current().size).toBe(0);
    expect(lines.map((l) => l.message).join('\n')).toMatch(/subscription 'nosecret' has no secret/);
    const withGlobal = createSubscriptionSource({ configDir: dir, logger, globalSecret: 'the-global-secret' });
    expect(withGlobal.current().get('nosecret')?.secret).toBe('the-global-secret');
  });

  it('leaves out disabled entries', () => {
    const { logger } = capturingLogger();
    writeEntries({ on: entry(), off: { ...entry(), enabled: false } });
    expect([...createSubscriptionSource({ configDir: dir, logger }).current().keys()]).toEqual(['on']);
  });

  it('keeps the last good set when the file stops parsing, logging one error per change', () => {
    const { logger, lines } = capturingLogger();
    const source = createSubscriptionSource({ configDir: dir, logger });
    writeEntries({ one: entry(), two: entry() });
    expect(source.current().size).toBe(2);
    writeFileSync(subscriptionsPath(dir), '{"one": {"secret": ');
    for (let i = 0; i < 5; i++) expect([...source.current().keys()]).toEqual(['one', 'two']);
    const errors = lines.filter((l) => l.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0].message).toMatch(/webhook_subscriptions\.json does not parse/);
    writeFileSync(subscriptionsPath(dir), '[1, 2]');
    source.current();
    source.current();
    expect(lines.filter((l) => l.level === 'error')).toHaveLength(2);
    writeEntries({ three: entry() });
    expect([...source.current().keys()]).toEqual(['three']);
  });

  it('drops every subscription when the file is deleted', () => {
    const { logger } = capturingLogger();
    const source = createSubscriptionSource({ configDir: dir, logger });
    writeEntries({ one: entry() });
    expect(source.current().size).toBe(1);
    rmSync(subscriptionsPath(dir));
    expect(source.current().size).toBe(0);
  });

  it('applies the caller-supplied check and skips routes that fail it', () => {
    const { logger, lines } = capturingLogger();
    writeEntries({ fine: entry(), chat: entry({ deliver: 'platform_99' }) });
    const source = createSubscriptionSource({
      configDir: dir,
      logger,
      check: (route) => (route.deliver === 'log' ? [] : [`route '${route.name}': unknown deliver type '${route.deliver}'`]),
    });
    expect([...source.current().keys()]).toEqual(['fine']);
    expect(lines.map((l) => l.message).join('\n')).toContain("route 'chat': unknown deliver type 'platform_99'");
  });

  it('re-reads the file with a check set after construction', () => {
    const { logger } = capturingLogger();
    writeEntries({ fine: entry(), chat: entry({ deliver: 'platform_99' }) });
    const source = createSubscriptionSource({ configDir: dir, logger });
    expect([...source.current().keys()]).toEqual(['fine', 'chat']);
    source.setCheck((route) => (route.deliver === 'log' ? [] : ['not registered']));
    expect([...source.current().keys()]).toEqual(['fine']);
  });
});

describe('updateSubscriptions', () => {
  it('writes the file atomically with mode 0600 and returns what the change returned', async () => {
    const result = await updateSubscriptions(dir, (entries) => {
      entries.ci = entry();
      return 'added';
    });
    expect(result).toBe('added');
    expect(statSync(subscriptionsPath(dir)).mode & 0o777).toBe(0o600);
    expect(readSubscriptions(dir)).toEqual({ ci: entry() });
  });

  it('creates the config dir when it does not exist yet', async () => {
    const nested = join(dir, 'a', 'b');
    await updateSubscriptions(nested, (entries) => {
      entries.x = entry();
    });
    expect(Object.keys(readSubscriptions(nested))).toEqual(['x']);
  });

  it('writes nothing when the change throws', async () => {
    writeEntries({ keep: entry() });
    const before = readFileSync(subscriptionsPath(dir), 'utf8');
    await expect(
      updateSubscriptions(dir, () => {
        throw new Error('no such subscription');
      }),
    ).rejects.toThrow('no such subscription');
    expect(readFileSync(subscriptionsPath(dir), 'utf8')).toBe(before);
  });

  it('refuses to overwrite a file that does not parse', async () => {
    writeFileSync(subscriptionsPath(dir), '{ not json');
    const err = await updateSubscriptions(dir, (entries) => {
      entries.x = entry();
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HookwiseError);
    expect((err as HookwiseError).code).toBe('HW_E_SUBSCRIPTIONS');
    expect((err as Error).message).toMatch(/does not parse.*fix the JSON or move the file away/);
    expect(readFileSync(subscriptionsPath(dir), 'utf8')).toBe('{ not json');
  });

  it('loses no entry when many changes run at once', async () => {
    const names = Array.from({ length: 12 }, (_, i) => `route-${i}`);
    await Promise.all(
      names.map((name) =>
        updateSubscriptions(dir, async (entries) => {
          // Yield inside the critical section so that unserialised writers would overwrite each other.
          await new Promise((resolve) => setImmediate(resolve));
          entries[name] = entry();
        }),
      ),
    );
    expect(Object.keys(readSubscriptions(dir)).sort()).toEqual([...names].sort());
  });
});
