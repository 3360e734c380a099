// The opencode preset behind the gateway's model proxy, in a real gateway and its bubblewrap sandbox: the CLI (a
// stand-in for opencode, the preset with `command:` replaced) holds no real key; OPENCODE_CONFIG names the config file
// the preset wrote into the route's private home, and the stand-in calls the model as opencode's anthropic provider
// (@ai-sdk/anthropic) would with that config: `POST <baseURL>/messages`, the apiKey (`{env:...}` substituted as
// opencode does when it loads the file) as x-api-key. A scripted Anthropic API gets the gateway's key, and the job
// records the call's usage and cost. The real opencode is not installed here.
import { join } from 'node:path';
import { STAND_IN_POST, useProxiedPresetRun } from './proxied-preset-run';

const KEY = 'sk-ant-gateway-anthropic-key-0123456789';

// The scripted Anthropic Messages API, streaming: message_start with the input usage, the text, message_delta with
// the output usage.
const proxied = useProxiedPresetRun('opencode', (res) => {
  const event = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.write(
    event('message_start', {
      message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [], usage: { input_tokens: 1000, output_tokens: 1 } },
    }),
  );
  res.write(event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }));
  res.write(event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Hello from the stand-in' } }));
  res.write(event('content_block_stop', { index: 0 }));
  res.write(event('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 200 } }));
  res.end(event('message_stop', {}));
});

// What the CLI sees and does: its environment and config file, then one streamed call as opencode's anthropic
// provider makes it with that config, answering in opencode's JSON events.
const AGENT = `${STAND_IN_POST}
const fs = require('fs');
process.stdin.resume();
process.stdin.on('end', () => {
  const e = process.env;
  const text = fs.readFileSync(e.OPENCODE_CONFIG, 'utf8');
  // opencode substitutes {env:NAME} in a config file's text before it parses it.
  const config = JSON.parse(text.replace(/\\{env:([^}]+)\\}/g, (_, name) => e[name] || ''));
  const { baseURL, apiKey } = config.provider.anthropic.options;
  const body = JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 256, stream: true, messages: [{ role: 'user', content: 'hi' }] });
  post(baseURL + '/messages', { 'x-api-key': apiKey, 'anthropic-version': '2023-06-01' }, body, (status, stream) => {
    const seen = { env: e, config: JSON.parse(text), apiKey, status, stream };
    process.stdout.write(JSON.stringify({ type: 'text', part: { text: JSON.stringify(seen) } }) + '\\n');
  });
});
`;

it("runs the opencode preset on the model proxy: its config points anthropic at the proxy with the run's token, Anthropic gets the real key, the job its usage and cost", async () => {
  const job = await proxied.run('opencode', AGENT, 'anthropic', { ANTHROPIC_API_KEY: KEY });
  expect(job.status).toBe('done');
  const seen = JSON.parse(job.answer!) as {
    env: Record<string, string>;
    config: { provider: Record<string, { options: { baseURL: string; apiKey: string } }> };
    apiKey: string;
    status: number;
    stream: string;
  };
  expect(seen.status).toBe(200);
  expect(seen.stream).toContain('Hello from the stand-in');
  expect(JSON.stringify(seen.env)).not.toContain(KEY);
  expect(JSON.stringify(seen.config)).not.toContain(KEY);
  expect(seen.env.OPENCODE_CONFIG).toBe(join(proxied.data, 'agent-homes', 'ci', 'opencode', '.hookwise', 'opencode.json'));
  const url = seen.env.HOOKWISE_MODEL_PROXY_URL;
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  expect(seen.config.provider.anthropic.options).toEqual({ baseURL: `${url}/v1`, apiKey: '{env:HOOKWISE_MODEL_PROXY_TOKEN}' });
  expect(seen.config.provider.openai.options.baseURL).toBe(`${url}/v1`);
  expect(seen.config.provider.google.options.baseURL).toBe(`${url}/v1beta`);
  expect(seen.apiKey).toBe(seen.env.HOOKWISE_MODEL_PROXY_TOKEN);
  expect(proxied.received).toHaveLength(1);
  expect(proxied.received[0].url).toBe('/v1/messages');
  expect(proxied.received[0].headers['x-api-key']).toBe(KEY);
  expect(JSON.stringify(proxied.received[0].headers)).not.toContain(seen.apiKey);
  expect(JSON.parse(proxied.received[0].body)).toMatchObject({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'hi' }] });
  expect(job.usage).toMatchObject({ inputTokens: 1000, outputTokens: 200, modelCalls: 1, costUsd: Math.round(((1000 * 3 + 200 * 15) / 1e6) * 1e6) / 1e6 });
});
