// POST /mcp on the admin listener: the gateway's MCP Events server (docs/mcp-events.md) for the clients of
// `mcp.clients`. Each request carries its client's bearer token; no token, or one no client holds: 401 before
// the body is read, and a client address sending wrong tokens is refused 429 for a while (as for /api).
// Stateless Streamable HTTP: no session, so GET (a standalone stream) and DELETE (end a session) are 405.
import type { Express } from 'express';
import { errorMessage } from '@hookwise/core';
import type { Gateway } from '@hookwise/gateway';
import { adminClientOf, ClientFailures } from './client-failures';

const MAX_BODY = '1mb';

export function mountMcp(app: Express, express: typeof import('express'), gateway: Gateway): void {
  const events = gateway.features.mcpEvents;
  const failures = new ClientFailures();
  const refuse = (res: import('express').Response, status: number, message: string) =>
    res
      .status(status)
      .set('cache-control', 'no-store')
      .json({ jsonrpc: '2.0', id: null, error: { code: -32001, message } });
  app.post(
    '/mcp',
    (req, res, next) => {
      const client = adminClientOf(req);
      const wait = failures.blockedFor(client);
      if (wait !== undefined) {
        res.set('retry-after', String(wait));
        refuse(res, 429, `too many wrong MCP tokens from this address; try again in ${wait} s`);
        return;
      }
      const found = events.authenticate(req.headers.authorization);
      if (!found) {
        if (req.headers.authorization !== undefined) failures.failed(client);
        res.set('www-authenticate', 'Bearer realm="hookwise-mcp"');
        refuse(res, 401, 'send Authorization: Bearer <token> with a token of mcp.clients');
        return;
      }
      res.locals.mcpClient = found;
      next();
    },
    express.json({ limit: MAX_BODY }),
    (req, res) => {
      events.serve(req, res, req.body, res.locals.mcpClient).catch((err: unknown) => {
        gateway.logger.error(`MCP request failed: ${errorMessage(err)}`);
        if (!res.headersSent) refuse(res, 500, 'internal error');
      });
    },
  );
  app.all('/mcp', (_req, res) => {
    res.status(405).set('allow', 'POST').json({ error: 'this MCP server is stateless: POST each request' });
  });
}
