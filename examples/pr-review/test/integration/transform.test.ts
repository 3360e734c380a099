// The pr-review example's transform (issue 36): run over GitHub's pull_request payload (the testing fixture), the
// slim payload renders the same prompt, comment settings and coalescing key as the whole one and passes the same
// filter, so the route reads as if nothing had changed; and the sizes docs/performance.md reports ("Prompt size and
// the pr-review transform") are the ones measured here.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import jsonata from 'jsonata';
import { parse } from 'yaml';
import { renderExtra, renderPrompt, renderTemplate } from '@hookwise/core';
import { githubFixture } from '@hookwise/testing';

interface RouteYaml {
  transform: { expression: string };
  prompt: string;
  coalesce: { key: string };
  deliver_extra: Record<string, string>;
  filter: Array<{ path: string }>;
}

const config = parse(readFileSync(join(__dirname, '..', '..', 'config.yaml'), 'utf8')) as {
  platforms: { webhook: { extra: { routes: { 'pr-review': RouteYaml } } } };
};
const route = config.platforms.webhook.extra.routes['pr-review'];
const rawText = githubFixture('pull_request.opened').toString('utf8');
const raw = JSON.parse(rawText) as Record<string, unknown>;

let slim: Record<string, unknown>;
beforeAll(async () => {
  slim = (await jsonata(route.transform.expression).evaluate(raw)) as Record<string, unknown>;
});

const at = (payload: unknown, path: string) => path.split('.').reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], payload);
/** Characters / 4: the usual estimate of tokens for English and JSON text (no tokenizer is a dependency here). */
const tokens = (chars: number) => Math.round(chars / 4);

it('keeps everything the route reads: same prompt, comment settings, coalescing key and filter values', () => {
  expect(renderPrompt(route.prompt, slim)).toBe(renderPrompt(route.prompt, raw));
  // A later push: the previous review's payload (kept slim too) gives the same head sha.
  const previous = { __previous__: slim };
  expect(renderPrompt(route.prompt, slim, previous)).toBe(renderPrompt(route.prompt, raw, { __previous__: raw }));
  expect(renderPrompt(route.prompt, slim, previous)).not.toContain('{__previous__.pull_request.head.sha}');
  expect(renderExtra(route.deliver_extra, slim)).toEqual(renderExtra(route.deliver_extra, raw));
  expect(renderTemplate(route.coalesce.key, slim)).toBe(renderTemplate(route.coalesce.key, raw));
  for (const { path } of route.filter) expect(at(slim, path)).toEqual(at(raw, path));
  // No placeholder left unfilled (a field the expression forgot would stay literal in the prompt).
  expect(renderPrompt(route.prompt, slim)).not.toMatch(/\{pull_request\.|\{repository\.|\{action\}/);
});

it('shrinks what the job keeps, and the prompt of a route without a template, to a few percent', () => {
  const slimText = JSON.stringify(slim);
  const sizes = {
    payload: { whole: rawText.length, transformed: slimText.length },
    promptTemplate: { whole: renderPrompt(route.prompt, raw).length, transformed: renderPrompt(route.prompt, slim).length },
    promptNoTemplate: { whole: renderPrompt(undefined, raw).length, transformed: renderPrompt(undefined, slim).length },
  };
  // The figures of docs/performance.md, printed so a rerun shows them.
  console.log(
    Object.entries(sizes)
      .map(([row, s]) => `${row}: ${s.whole} -> ${s.transformed} chars (~${tokens(s.whole)} -> ~${tokens(s.transformed)} tokens)`)
      .join('\n'),
  );
  expect(sizes.payload.transformed).toBeLessThan(sizes.payload.whole / 10);
  expect(sizes.promptNoTemplate.transformed).toBeLessThan(sizes.promptNoTemplate.whole / 5);
  expect(sizes.promptTemplate.transformed).toBe(sizes.promptTemplate.whole);
  // Without a template the whole payload is cut at the dump limit before the head commit; the slim one keeps it.
  const sha = String(at(raw, 'pull_request.head.sha'));
  expect(renderPrompt(undefined, raw)).not.toContain(sha);
  expect(renderPrompt(undefined, slim)).toContain(sha);
});
