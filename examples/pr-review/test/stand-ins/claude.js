#!/usr/bin/env node
/* global Headers, Response */
// A stand-in `claude` for the pr-review example's test: it behaves as Claude Code would in print mode with the
// flags the claude preset gives it. It records what it got (argv, the names of its environment, the key, the MCP
// config file named by --mcp-config), runs the diff command the skill names on the prompt's diff URL (curl,
// through the sandbox's egress proxy like the real one), connects to the hookwise MCP server of that config over
// streamable HTTP with the official SDK client, lists its tools and adds a label, then prints Claude Code's JSON
// result.
// STANDIN_RUNS (a writable dir) and STANDIN_SDK (the SDK's client dir) are set through the route's agent env.
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

// Node's fetch ignores HTTP_PROXY; inside the sandbox the egress proxy is the only way out, as for Claude Code.
function proxyFetch(url, init = {}) {
  const target = new URL(String(url));
  const proxy = process.env.HTTP_PROXY ? new URL(process.env.HTTP_PROXY) : undefined;
  const headers = Object.fromEntries(new Headers(init.headers).entries());
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: proxy ? proxy.hostname : target.hostname,
        port: proxy ? proxy.port : target.port,
        method: init.method ?? 'GET',
        agent: false, // no kept-alive socket holding the process open after its answer
        path: proxy ? target.href : target.pathname + target.search,
        headers: { ...headers, host: target.host },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const out = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') out.set(k, v);
          const status = res.statusCode ?? 500;
          resolve(new Response(status === 204 || status === 202 ? null : Buffer.concat(chunks), { status, headers: out }));
        });
      },
    );
    req.on('error', reject);
    if (init.body) req.write(init.body);
    req.end();
  });
}

async function main(prompt) {
  const argv = process.argv.slice(2);
  const at = argv.indexOf('--mcp-config');
  const mcpFile = at >= 0 ? argv[at + 1] : undefined;
  const mcp = mcpFile ? { file: mcpFile, mode: fs.statSync(mcpFile).mode & 0o777, config: JSON.parse(fs.readFileSync(mcpFile, 'utf8')) } : null;
  const record = { argv, env: Object.keys(process.env).sort(), key: process.env.ANTHROPIC_API_KEY ?? null, prompt, mcp };

  // What a model does: the skill (in the system prompt the preset passes as an argument) names the one command for
  // the diff (the preset's --allowedTools lists it), the prompt the diff URL to put in it.
  const skillCommand = argv.some((arg) => arg.includes('curl -sSfL -H "Accept: application/vnd.github.diff" <diff URL>'));
  const url = /^Diff URL: (\S+)$/m.exec(prompt);
  record.diff = skillCommand && url ? execFileSync('curl', ['-sSfL', '-H', 'Accept: application/vnd.github.diff', url[1]], { encoding: 'utf8' }) : null;

  const server = mcp && mcp.config.mcpServers.hookwise;
  if (server) {
    const { Client } = require(path.join(process.env.STANDIN_SDK, 'index.js'));
    const { StreamableHTTPClientTransport } = require(path.join(process.env.STANDIN_SDK, 'streamableHttp.js'));
    const client = new Client({ name: 'claude-stand-in', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: server.headers }, fetch: proxyFetch }));
    record.tools = (await client.listTools()).tools.map((t) => t.name);
    record.refused = await client.callTool({ name: 'github.add_labels', arguments: { labels: ['wontfix'] } });
    record.labelled = await client.callTool({ name: 'github.add_labels', arguments: { labels: ['needs-tests'] } });
    await client.close();
  }
  fs.writeFileSync(path.join(process.env.STANDIN_RUNS, `run-${Date.now()}-${process.pid}.json`), JSON.stringify(record));
  const head = /\(([0-9a-f]{40})\) into/.exec(prompt);
  const result = `Review of ${head ? head[1].slice(0, 7) : 'an unknown head'}: ${record.diff ? record.diff.split('\n').length : 0} diff lines read. Add a test.`;
  process.stdout.write(
    JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result, session_id: 'stand-in', usage: { input_tokens: 100, output_tokens: 20 } }),
    () => process.exit(0),
  );
}

let input = '';
process.stdin.on('data', (c) => (input += c));
process.stdin.on('end', () =>
  main(input).catch((err) => {
    process.stderr.write(`claude stand-in failed: ${err && err.stack}\n`);
    process.exit(1);
  }),
);
