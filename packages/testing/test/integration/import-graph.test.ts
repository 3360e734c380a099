// The shape of the code, read from its imports: no import circles anywhere in the sources, and inside the gateway
// every folder imports only the folders below it (docs/architecture.md, "Where things live"). The features sit
// above ingest and jobs, which declare the hooks they implement, so neither path ever imports a feature.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { importCircles, importGraph, layerBreaks } from '../support/import-graph';

const ROOT = join(__dirname, '..', '..', '..', '..');

/** packages/gateway/src from the ground up; the folders on one line never import each other. */
const GATEWAY_LAYERS = [
  ['generated'],
  ['config'],
  ['stores'],
  ['observe'],
  ['filters'],
  ['routes'],
  ['ingest', 'jobs'],
  ['plugins'],
  ['conversations', 'approvals', 'senders', 'transforms', 'deliver-only', 'job-channel', 'model-proxy', 'schedules', 'mcp-events'],
  ['actions'],
  ['.'],
];

describe('import graph', () => {
  const graph = importGraph(ROOT);

  it('reads the sources', () => {
    expect(graph.arrows.size).toBeGreaterThan(300);
    expect(graph.arrows.get('packages/gateway/src/ingest/pipeline.ts')).toContain('packages/gateway/src/ingest/ingest-hooks.ts');
  });

  it('has no import circle in packages/*/src and plugins/*/src, type imports included', () => {
    expect(importCircles(graph)).toEqual([]);
  });

  it('reads plugins/*/src beside packages/*/src, and type-only imports as arrows', () => {
    const scratch = mkdtempSync(join(tmpdir(), 'hw-import-graph-'));
    const files: Record<string, string> = {
      'packages/lib/src/a.ts': "import type { B } from './b';\nexport type A = B;\n",
      'packages/lib/src/b.ts': "export type { A as B } from './a';\n",
      'plugins/source-x/src/c.ts': "export type C = import('./d').D;\n",
      'plugins/source-x/src/d.ts': "import { type C } from './c';\nexport type D = C;\n",
    };
    try {
      for (const [file, text] of Object.entries(files)) {
        mkdirSync(dirname(join(scratch, file)), { recursive: true });
        writeFileSync(join(scratch, file), text);
      }
      const circles = importCircles(importGraph(scratch));
      expect(circles).toEqual([
        ['packages/lib/src/a.ts', 'packages/lib/src/b.ts'],
        ['plugins/source-x/src/c.ts', 'plugins/source-x/src/d.ts'],
      ]);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
    expect([...graph.arrows.keys()].filter((file) => file.startsWith('plugins/')).length).toBeGreaterThan(100);
  });

  it('finds a circle when there is one (the check itself works)', () => {
    const arrows = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(importCircles({ arrows })).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });

  it('imports only downwards between the folders of packages/gateway/src', () => {
    expect(layerBreaks(graph, 'packages/gateway/src', GATEWAY_LAYERS)).toEqual([]);
  });

  it('reports an import that runs back up, between siblings, and a folder of no layer', () => {
    const arrows = new Map([
      ['p/src/jobs/worker.ts', ['p/src/conversations/turns.ts', 'p/src/ingest/pipeline.ts', 'p/src/routes/routes.ts']],
      ['p/src/novel/thing.ts', []],
    ]);
    expect(layerBreaks({ arrows }, 'p/src', [['routes'], ['ingest', 'jobs'], ['conversations']])).toEqual([
      'p/src/jobs/worker.ts -> p/src/conversations/turns.ts (jobs may not import conversations)',
      'p/src/jobs/worker.ts -> p/src/ingest/pipeline.ts (jobs may not import ingest)',
      "p/src/novel/thing.ts: its folder 'novel' is in no layer",
    ]);
  });
});
