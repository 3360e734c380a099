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

/** Where Debian's socat is: a system path, so it is visible inside every sandbox. */
export const SOCAT_PATH = '/usr/bin/socat';

/**
 * The same forwarder with socat (Debian `socat`), which starts in a few milliseconds where node takes 40-80:
 * socat listens in the background, the shell waits until its log says it listens (so the command's first
 * connection never meets a closed port), then becomes the command. argv: as FORWARDER_SCRIPT's, after `sh -c`.
 * `prologue` (shell lines ending in `;` or `&`) runs first: the lifeline's watcher.
 */
export function socatForwarder(socketPath: string, port: number, command: readonly string[], prologue = ''): string[] {
  const script =
    prologue +
    `${SOCAT_PATH} -d -d TCP-LISTEN:${port},bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:${socketPath} 2>/tmp/.hookwise-forwarder.log & ` +
    'n=0; until grep -q listening /tmp/.hookwise-forwarder.log 2>/dev/null; do ' +
    'n=$((n+1)); if [ $n -gt 2000 ]; then echo "hookwise sandbox: the proxy forwarder (socat) did not start" >&2; exit 125; fi; sleep 0.001; done; ' +
    'exec "$@"';
  return ['/bin/sh', '-c', script, 'hookwise-sandbox', ...command];
}
