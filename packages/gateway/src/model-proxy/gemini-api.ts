// Google's Gemini API (generativelanguage.googleapis.com) as the model proxy serves it: its paths (the model and the
// method are in the path, `/v1beta/models/gemini-2.5-flash:streamGenerateContent`), where its clients put the key
// (`x-goog-api-key`, or `?key=`) and the tokens a response tells in `usageMetadata`. The proxy's refusals in Google's
// error format are with the other providers' (./provider-errors).
// Reference: ai.google.dev/api/generate-content (GenerateContentResponse, UsageMetadata).
import type { CallTokens } from './model-prices';

/** generateContent and both streams are read for their usage; countTokens is passed on and not counted. */
const GEMINI_PATH = /^\/(?:v1beta|v1alpha|v1)\/models\/([^/:]+):(generateContent|streamGenerateContent|countTokens)$/;

/** The model and whether the call is one the proxy counts, for a Gemini API path; undefined for any other path. */
export function geminiCall(pathname: string): { model: string; counted: boolean } | undefined {
  const match = GEMINI_PATH.exec(pathname);
  if (!match) return undefined;
  return { model: decodeURIComponent(match[1]), counted: match[2] !== 'countTokens' };
}

/** The run's token as a Gemini client sends it: the `x-goog-api-key` header or the `key` query parameter. */
export function geminiToken(headers: Record<string, string | string[] | undefined>, url: URL): string | undefined {
  const header = headers['x-goog-api-key'];
  if (typeof header === 'string' && header) return header;
  return url.searchParams.get('key') || undefined;
}

const num = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

/**
 * One response's (or stream chunk's) `usageMetadata` as the proxy counts tokens. `promptTokenCount` includes the
 * cached tokens (`cachedContentTokenCount`), as our input does; `toolUsePromptTokenCount` is input too. Thinking
 * (`thoughtsTokenCount`) is billed as output, beside `candidatesTokenCount`. Each stream chunk tells the totals so
 * far, so the last one read is the call's.
 */
export function geminiTokens(usage: Record<string, unknown>): CallTokens {
  return {
    input: num(usage.promptTokenCount) + num(usage.toolUsePromptTokenCount),
    output: num(usage.candidatesTokenCount) + num(usage.thoughtsTokenCount),
    cacheRead: num(usage.cachedContentTokenCount),
    cacheWrite: 0,
  };
}
