// The bwrap command line: what is bound, what is masked, what is refused. (What it does is shown by the
// integration tests with real sandboxes.)
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EGRESS_SOCKET_INSIDE, sandboxCommand, type SandboxSpec } from '../../src';
import { tempDir } from '../helpers';

const root = tempDir('cmd');
const workDir = join(root, 'work');
const configDir = join(root, 'config');
mkdirSync(workDir);
mkdirSync(configDir);
writeFileSync(join(root, 'store.db'), '');
afterAll(() => rmSync(root, { recursive: true, force: true }));

const base: SandboxSpec = {
  bwrapPath: '/usr/bin/bwrap',
  command: 'sh',
  args: ['-c', 'true'],
  env: { PATH: '/usr/bin:/bin', HOME: '/root', HTTP_PROXY: 'http://corp:8080' },
  workDir,
};

/** The pairs or triples of an option in argv, e.g. all `--ro-bind SRC DEST` as "SRC DEST". */
function options(args: string[], name: string, arity: number): string[] {
  const found: string[] = [];
  for (let i = 0; i < args.indexOf('--'); i++) if (args[i] === name) found.push(args.slice(i + 1, i + 1 + arity).join(' '));
  return found;
}

test('new namespaces, own session, dies with its parent, no capabilities; the command after --', () => {
  const plan = sandboxCommand(base);
  expect(plan.command).toBe('/usr/bin/bwrap');
  expect(plan.args.slice(0, 6)).toEqual(['--unshare-all', '--die-with-parent', '--new-session', '--cap-drop', 'ALL', '--ro-bind']);
  expect(plan.args.slice(plan.args.indexOf('--'))).toEqual(['--', 'sh', '-c', 'true']);
  expect(options(plan.args, '--chdir', 1)).toEqual([workDir]);
  expect(plan.cwd).toBe(workDir);
});

test('binds the system read-only and the work dir writable, never the home dirs, /var, /srv or the host /tmp', () => {
  const plan = sandboxCommand(base);
  const sources = [...options(plan.args, '--ro-bind', 2), ...options(plan.args, '--bind', 2)].map((pair) => pair.split(' ')[0]);
  expect(sources).toContain('/usr');
  expect(sources).toContain('/etc');
  expect(options(plan.args, '--bind', 2)).toEqual([`${workDir} ${workDir}`]);
  for (const secret of ['/root', '/home', '/var', '/srv', '/work', '/tmp']) expect(sources).not.toContain(secret);
  expect(options(plan.args, '--tmpfs', 1)).toContain('/tmp');
  expect(options(plan.args, '--proc', 1)).toEqual(['/proc']);
});

test('environment: the runner`s, with HOME the work dir, TMPDIR /tmp, and no proxy variables when there is no egress', () => {
  const plan = sandboxCommand(base);
  expect(plan.env).toEqual({ PATH: '/usr/bin:/bin', HOME: workDir, TMPDIR: '/tmp', PWD: workDir });
  expect(sandboxCommand({ ...base, home: join(workDir, 'home') }).env.HOME).toBe(join(workDir, 'home'));
});

test('with an egress socket: the socket bound inside, the forwarder started by node, every proxy variable set', () => {
  const plan = sandboxCommand({ ...base, egressSocket: join(root, 'x.sock'), proxyPort: 3999, forwarder: 'node' });
  expect(options(plan.args, '--ro-bind', 2)).toContain(`${join(root, 'x.sock')} ${EGRESS_SOCKET_INSIDE}`);
  const command = plan.args.slice(plan.args.indexOf('--') + 1);
  expect(command[1]).toBe('-e');
  expect(command.slice(3)).toEqual([EGRESS_SOCKET_INSIDE, '3999', 'sh', '-c', 'true']);
  for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'http_proxy', 'https_proxy', 'all_proxy']) expect(plan.env[name]).toBe('http://127.0.0.1:3999');
  expect(plan.env.NO_PROXY).toBe('');
});

test('with socat: a shell starts socat on the port towards the socket, waits until it listens, then becomes the command', () => {
  const plan = sandboxCommand({ ...base, egressSocket: join(root, 'x.sock'), proxyPort: 3999, forwarder: 'socat' });
  const command = plan.args.slice(plan.args.indexOf('--') + 1);
  expect(command.slice(0, 2)).toEqual(['/bin/sh', '-c']);
  expect(command[2]).toContain(`/usr/bin/socat -d -d TCP-LISTEN:3999,bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:${EGRESS_SOCKET_INSIDE}`);
  expect(command[2]).toContain('until grep -q listening');
  expect(command[2]).toMatch(/exec "\$@"$/);
  expect(command.slice(3)).toEqual(['hookwise-sandbox', 'sh', '-c', 'true']);
  expect(plan.env.HTTPS_PROXY).toBe('http://127.0.0.1:3999');
});

test('a hidden dir under an allowed path is masked (empty, read-only) after the binds; a hidden file is replaced by /dev/null', () => {
  const plan = sandboxCommand({ ...base, readOnly: [root], hidden: [configDir, join(root, 'store.db')] });
  const tmpfs = plan.args.indexOf(configDir, plan.args.indexOf('--tmpfs', plan.args.indexOf(`${root}`)));
  expect(options(plan.args, '--tmpfs', 1)).toContain(configDir);
  expect(options(plan.args, '--remount-ro', 1)).toContain(configDir);
  expect(options(plan.args, '--ro-bind', 2)).toContain(`/dev/null ${join(root, 'store.db')}`);
  expect(tmpfs).toBeGreaterThan(plan.args.indexOf(root));
});

test('hidden paths are resolved through symlinks, and a hidden path that nothing exposes adds nothing', () => {
  const link = join(root, 'config-link');
  symlinkSync(configDir, link);
  expect(options(sandboxCommand({ ...base, readOnly: [root], hidden: [link] }).args, '--tmpfs', 1)).toContain(configDir);
  expect(options(sandboxCommand({ ...base, hidden: [configDir] }).args, '--tmpfs', 1)).not.toContain(configDir);
});

test('refuses an allowed path inside a hidden one, and relative paths, naming each', () => {
  expect(() => sandboxCommand({ ...base, writable: [join(configDir, 'skills')], readOnly: ['tools'], hidden: [configDir] })).toThrow(
    `agent.sandbox.writable path '${join(configDir, 'skills')}' is inside '${configDir}', which is never shown to an agent (config dir, store or logs): choose a path outside it`,
  );
  expect(() => sandboxCommand({ ...base, readOnly: ['tools'] })).toThrow("agent.sandbox.read_only path 'tools' is not an absolute path");
  expect(() => sandboxCommand({ ...base, workDir: configDir, hidden: [configDir] })).toThrow(`the work dir '${configDir}' is inside '${configDir}'`);
});

test('binds an outer path before the paths inside it, whichever list they are in, so each keeps its own mode', () => {
  const home = join(root, 'home');
  const login = join(home, '.claude', '.credentials.json');
  mkdirSync(join(home, '.claude'), { recursive: true });
  writeFileSync(login, '{}');
  const plan = sandboxCommand({ ...base, readOnly: [login], writable: [home] });
  const at = (flag: string, path: string) => plan.args.findIndex((arg, i) => arg === flag && plan.args[i + 1] === path);
  expect(at('--bind-try', home)).toBeGreaterThan(0);
  expect(at('--ro-bind-try', login)).toBeGreaterThan(at('--bind-try', home));
});
