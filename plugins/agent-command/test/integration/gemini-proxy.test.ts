// The gemini preset behind the gateway's model proxy, in a real gateway and its bubblewrap sandbox: the CLI (a
// stand-in for Gemini CLI, the preset with `command:` replaced) gets the proxy's URL as GOOGLE_GEMINI_BASE_URL and the
// run's token as GEMINI_API_KEY, never the gateway's key, and a system settings file selecting the CLI's API-key
// mode; its streamed call reaches a scripted Gemini API with the real key, and the job records the call's usage and
// cost. The real Gemini CLI is not installed here.
import { join } from 'node:path';
import { STAND_IN_POST, useProxiedPresetRun } from './proxied-preset-run';

const KEY = 'AIzaSy-gateway-gemini-key-0123456789';
const USAGE = { promptTokenCount: 1200, candidatesTokenCount: 250, cachedContentTokenCount: 800, thoughtsTokenCount: 150, totalTokenCount: 1600 };

// The scripted Gemini API: two SSE chunks, the last with the call's totals.
const proxied = useProxiedPresetRun('gemini', (res) => {
  const chunk = (text: string, usageMetadata: object, finishReason?: string) =>
    `data: ${JSON.stringify({ candidates: [{ content: { parts: [{ text }], role: 'model' }, ...(finishReason && { finishReason }), index: 0 }], usageMetadata, modelVersion: 'gemini-2.5-flash' })}\r\n\r\n`;
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.write(chunk('Hello from ', { promptTokenCount: 1200, totalTokenCount: 1203, candidatesTokenCount: 3 }));
  res.end(chunk('the stand-in', USAGE, 'STOP'));
});

// What the CLI sees and does: its environment and settings file, then one streamed call as Google's SDK makes it
// (through the sandbox's egress proxy), answering in Gemini CLI's JSON output.
const AGENT = `${STAND_IN_POST}
const fs = require('fs');
process.stdin.resume();
process.stdin.on('end', () => {
  const e = process.env;
  const body = JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] });
  post(e.GOOGLE_GEMINI_BASE_URL + '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse', { 'x-goog-api-key': e.GEMINI_API_KEY }, body, (status, text) => {
    const seen = { env: e, settings: fs.readFileSync(e.GEMINI_CLI_SYSTEM_SETTINGS_PATH, 'utf8'), status, stream: text };
    process.stdout.write(JSON.stringify({ response: JSON.stringify(seen), stats: { models: {} } }));
  });
});
`;

it("runs the gemini preset on the model proxy: the CLI holds the proxy's URL and token, Google gets the real key, the job its usage and cost", async () => {
  const job = await proxied.run('gemini', AGENT, 'gemini', { GEMINI_API_KEY: KEY, GOOGLE_API_KEY: KEY });
  expect(job.status).toBe('done');
  const seen = JSON.parse(job.answer!) as { env: Record<string, string>; settings: string; status: number; stream: string };
  expect(seen.status).toBe(200);
  expect(seen.stream).toContain('the stand-in');
  expect(JSON.stringify(seen.env)).not.toContain(KEY);
  expect(seen.env.GOOGLE_API_KEY).toBeUndefined();
  expect(seen.env.GOOGLE_GEMINI_BASE_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  expect(seen.env.GEMINI_API_KEY).toBe(seen.env.HOOKWISE_MODEL_PROXY_TOKEN);
  expect(seen.env.GEMINI_CLI_SYSTEM_SETTINGS_PATH).toBe(join(proxied.data, 'agent-homes', 'ci', 'gemini', '.hookwise', 'gemini-system-settings.json'));
  expect(JSON.parse(seen.settings)).toEqual({ security: { auth: { selectedType: 'gemini-api-key' } } });
  expect(proxied.received).toHaveLength(1);
  expect(proxied.received[0].url).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
  expect(proxied.received[0].headers['x-goog-api-key']).toBe(KEY);
  expect(JSON.parse(proxied.received[0].body)).toEqual({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] });
  expect(job.usage).toMatchObject({
    inputTokens: 1200,
    outputTokens: 400,
    cachedInputTokens: 800,
    modelCalls: 1,
    costUsd: Math.round(((400 * 0.3 + 800 * 0.03 + 400 * 2.5) / 1e6) * 1e6) / 1e6,
  });
});
