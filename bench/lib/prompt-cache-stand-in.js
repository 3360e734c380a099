// A scripted Anthropic Messages API (POST /v1/messages, JSON answers) that reports prompt caching as Anthropic
// documents it ("Prompt caching"): the prompt is read in the order tools, system, messages; a block marked
// `cache_control` is a breakpoint, and the prefix up to each breakpoint is written to the cache; a later request
// whose prompt starts with a cached prefix reads it (`cache_read_input_tokens`: the longest such prefix), writes
// what lies between it and its last breakpoint (`cache_creation_input_tokens`), and pays the rest as
// `input_tokens`. A prefix shorter than the model's minimum (1,024 tokens for Sonnet and Opus) is not cached.
// Tokens are estimated as 4 characters each, Anthropic's rule of thumb; what counts here is the share, not the count.
'use strict';
const http = require('node:http');

const CHARS_PER_TOKEN = 4;
const MIN_CACHED_TOKENS = 1024;

/** The prompt as one text, in the order the cache reads it, and the text's length at each breakpoint. */
function promptText(body) {
  let text = '';
  const breakpoints = [];
  const add = (block) => {
    const { cache_control: mark, ...rest } = block;
    text += JSON.stringify(rest);
    if (mark) breakpoints.push(text.length);
  };
  for (const tool of body.tools ?? []) add(tool);
  for (const block of typeof body.system === 'string' ? [{ type: 'text', text: body.system }] : (body.system ?? [])) add(block);
  for (const message of body.messages ?? []) {
    text += `<${message.role}>`;
    for (const block of typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content) add(block);
  }
  return { text, breakpoints };
}

const tokens = (chars) => Math.ceil(chars / CHARS_PER_TOKEN);

/** Starts the stand-in on 127.0.0.1:0; it answers every request with `answer`. */
async function startPromptCacheStandIn(answer = 'Looks good to me.') {
  /** Cached prefixes (the text up to a breakpoint of an earlier request). */
  const cache = new Set();
  const requests = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      if (req.method !== 'POST' || !/^\/v1\/messages(\?|$)/.test(req.url ?? '')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        return res.end('{"type":"error","error":{"type":"not_found_error","message":"not here"}}');
      }
      const body = JSON.parse(raw);
      const { text, breakpoints } = promptText(body);
      let read = 0;
      for (const prefix of cache) if (prefix.length > read && text.startsWith(prefix)) read = prefix.length;
      const last = breakpoints.length ? breakpoints[breakpoints.length - 1] : 0;
      const cacheable = tokens(last) >= MIN_CACHED_TOKENS;
      for (const at of breakpoints) if (tokens(at) >= MIN_CACHED_TOKENS) cache.add(text.slice(0, at));
      const usage = {
        input_tokens: tokens(text.length) - (cacheable ? tokens(Math.max(read, last)) : tokens(read)),
        cache_read_input_tokens: tokens(read),
        cache_creation_input_tokens: cacheable && last > read ? tokens(last) - tokens(read) : 0,
        output_tokens: tokens(answer.length),
      };
      requests.push({ body, usage });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: `msg_bench_${requests.length}`,
          type: 'message',
          role: 'assistant',
          model: body.model,
          content: [{ type: 'text', text: answer }],
          stop_reason: 'end_turn',
          stop_sequence: null,
          usage,
        }),
      );
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    requests,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

module.exports = { startPromptCacheStandIn, promptText };
