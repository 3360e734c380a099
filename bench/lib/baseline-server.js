// The baseline: a bare node:http server doing only the unavoidable work of a webhook receiver
// (read the body, HMAC-SHA256 check in constant time, JSON parse, answer 202). Usage: node baseline-server.js <port> <secret>
'use strict';
const { createServer } = require('node:http');
const { createHmac, timingSafeEqual } = require('node:crypto');

const port = Number(process.argv[2] || 0);
const secret = process.argv[3] || 'bench-secret-0123456789abcdef';

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
    const given = Buffer.from(String(req.headers['x-hub-signature-256'] || ''));
    const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(body).digest('hex')}`);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end('{"error":"Invalid signature"}');
      return;
    }
    let payload;
    try {
      payload = JSON.parse(body.toString('utf8'));
    } catch {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end('{"error":"Cannot parse body"}');
      return;
    }
    const out = JSON.stringify({ status: 'accepted', delivery_id: req.headers['x-github-delivery'], keys: Object.keys(payload).length });
    res.writeHead(202, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(out) });
    res.end(out);
  });
});
server.keepAliveTimeout = 5000;
server.listen(port, '127.0.0.1', () => {
  process.stdout.write(`listening ${server.address().port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
