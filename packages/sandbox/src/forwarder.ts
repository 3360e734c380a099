// The first process inside a sandbox that has network rules: listens on 127.0.0.1:<port> in the sandbox's
// own network namespace, pipes every connection to the egress proxy's unix socket bound into the sandbox,
// then runs the real command with the same stdio and exits as it did. Passed to `node -e`, so no file has to
// be found or bound (only the node binary). Plain JS, kept small: it runs on every sandboxed start.
//
// argv: <socket path> <port> <command> [args...]
export const FORWARDER_SCRIPT = `'use strict';
const net = require('net');
const { spawn } = require('child_process');
const [socketPath, port, command, ...args] = process.argv.slice(1);
const server = net.createServer((client) => {
  const upstream = net.connect(socketPath);
  client.on('error', () => upstream.destroy());
  upstream.on('error', () => client.destroy());
  client.pipe(upstream);
  upstream.pipe(client);
});
server.on('error', (error) => {
  process.stderr.write('hookwise sandbox: the proxy forwarder cannot listen on 127.0.0.1:' + port + ': ' + error.message + '\\n');
  process.exit(125);
});
server.listen(Number(port), '127.0.0.1', () => {
  const child = spawn(command, args, { stdio: 'inherit' });
  child.on('error', (error) => {
    process.stderr.write('hookwise sandbox: cannot start ' + command + ': ' + error.code + '\\n');
    process.exit(error.code === 'ENOENT' ? 127 : 126);
  });
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => {
    server.close();
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    } else process.exit(code);
  });
});
`;
