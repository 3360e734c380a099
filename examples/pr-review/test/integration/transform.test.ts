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
import { getEncoding } from 'js-tiktoken';

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
/** Tokens of a text as OpenAI's o200k_base tokenizer counts them (js-tiktoken, maintained by OpenAI's tiktoken authors). */
const encoding = getEncoding('o200k_base');
const tokens = (text: string) => encoding.encode(text).length;

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
  const texts = {
    payload: { whole: rawText, transformed: slimText },
    promptTemplate: { whole: renderPrompt(route.prompt, raw), transformed: renderPrompt(route.prompt, slim) },
    promptNoTemplate: { whole: renderPrompt(undefined, raw), transformed: renderPrompt(undefined, slim) },
  };
  const sizes = Object.fromEntries(Object.entries(texts).map(([row, t]) => [row, { whole: t.whole.length, transformed: t.transformed.length }])) as Record<
    keyof typeof texts,
    { whole: number; transformed: number }
  >;
  // The figures of docs/performance.md, printed so a rerun shows them.
  console.log(
    Object.entries(texts)
      .map(([row, t]) => `${row}: ${t.whole.length} -> ${t.transformed.length} chars, ${tokens(t.whole)} -> ${tokens(t.transformed)} tokens (o200k_base)`)
      .join('\n'),
  );
  expect(tokens(slimText)).toBeLessThan(tokens(rawText) / 10);
  expect(sizes.payload.transformed).toBeLessThan(sizes.payload.whole / 10);
  expect(sizes.promptNoTemplate.transformed).toBeLessThan(sizes.promptNoTemplate.whole / 5);
  expect(sizes.promptTemplate.transformed).toBe(sizes.promptTemplate.whole);
  // Without a template the whole payload is cut at the dump limit before the head commit; the slim one keeps it.
  const sha = String(at(raw, 'pull_request.head.sha'));
  expect(renderPrompt(undefined, raw)).not.toContain(sha);
  expect(renderPrompt(undefined, slim)).toContain(sha);
});
