// Ends the process groups that runProcess started when this process dies, even by SIGKILL or a crash.
//
// runProcess puts every child in its own process group so that a timeout can kill the whole tree, but that
// also takes the tree out of reach of anything that happens to this process: after a `kill -9` of the
// gateway an agent would keep running (and having side effects) while the restarted gateway runs the same
// job again. Node has no portable "die with your parent" switch (Linux's PR_SET_PDEATHSIG needs a native
// addon, covers only the direct child, not its group, and fires on the death of the spawning thread), and a
// wrapper process per child would double the processes and blur the child's pid and exit status. So each
// process that uses runProcess gets one small watchdog instead, started on first use:
//
// - `/bin/sh` running WATCHDOG_SCRIPT, with a pipe on its stdin and nothing else connected (it never
//   prints). We write `add <pgid> <grace seconds>` when a group starts and `del <pgid>` once it is gone.
// - The watchdog cannot learn that we died from a signal, but the kernel closes our end of the pipe however
//   we end, so its `read` sees EOF. It then sends SIGTERM to every group still listed, waits up to the
//   longest grace period (polling once a second, so it is done as soon as the groups are empty) and sends
//   SIGKILL to what is left. With nothing listed it exits at once: a clean exit leaves nothing behind.
// - It runs in its own process group and session, and ignores INT, QUIT, TERM and HUP: Ctrl-C in a terminal
//   (SIGINT to the whole foreground group), a hang-up, or a signal to our process group must not take it
//   down before it has done its job; only a signal aimed at it that it does not ignore (SIGKILL) stops it.
// - The pipe is close-on-exec (libuv creates it so), so the agents we spawn later do not hold it open,
//   which would otherwise hide our death from the watchdog.
// - The child handle and the pipe are unref'd: the watchdog never keeps our event loop alive.
// - If the watchdog dies anyway, a new one is started and told every group still running.
//
// Limits: a group is not covered if we die between its spawn() and the `add` written right after it (the
// watchdog is started before the spawn, so that is the same tick, but not zero time); a process that moves
// itself to another group or session (setsid, a daemonising double fork) has left the group and is out of
// reach, as it already was for timeouts. Without /bin/sh (Windows) nothing of this runs and a dying gateway
// leaves its children running, as before.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Socket } from 'node:net';

// POSIX sh (dash, bash, busybox). Entries are `<pgid>/<grace>`; an id of 0 or 1 (or anything not a number)
// is refused, since `kill -- -1` would mean every process we may signal.
// The first line is what `ps` shows of it.
const WATCHDOG_SCRIPT = `# hookwise process reaper: ends the parent's process groups when the parent dies
trap '' INT QUIT TERM HUP
groups=
while read -r cmd id grace; do
  case $id in ''|0|1|*[!0-9]*) continue ;; esac
  case $grace in ''|*[!0-9]*) grace=2 ;; esac
  kept=
  for g in $groups; do [ "\${g%/*}" = "$id" ] || kept="$kept $g"; done
  groups=$kept
  if [ "$cmd" = add ]; then groups="$groups $id/$grace"; fi
done
[ -n "$groups" ] || exit 0
wait=0
for g in $groups; do
  kill -s TERM -- "-\${g%/*}" 2>/dev/null
  if [ "\${g#*/}" -gt "$wait" ]; then wait=\${g#*/}; fi
done
while [ "$wait" -gt 0 ]; do
  alive=
  for g in $groups; do kill -s 0 -- "-\${g%/*}" 2>/dev/null && alive=1; done
  [ -n "$alive" ] || exit 0
  sleep 1
  wait=$((wait - 1))
done
for g in $groups; do kill -s KILL -- "-\${g%/*}" 2>/dev/null; done
exit 0
`;

const SHELL = '/bin/sh';

/** Groups handed to the watchdog and not yet gone: pgid -> grace period in whole seconds. */
const tracked = new Map<number, number>();
let watchdog: ChildProcess | undefined;
let available: boolean | undefined;

function isAvailable(): boolean {
  available ??= process.platform !== 'win32' && existsSync(SHELL);
  return available;
}

function send(line: string): void {
  // A write to a watchdog that just died fails with EPIPE on the 'error' handler below; nothing to do then.
  watchdog?.stdin?.write(`${line}\n`);
}

function startWatchdog(): void {
  let child: ChildProcess;
  try {
    child = spawn(SHELL, ['-c', WATCHDOG_SCRIPT, 'hookwise-reaper'], {
      cwd: '/',
      // Only what the script needs (`sleep`); the gateway's secrets have no business in a long-lived helper.
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
      windowsHide: true,
    });
  } catch {
    return; // e.g. EAGAIN: no watchdog this time, the next spawn tries again
  }
  const startedAt = Date.now();
  const forget = (): void => {
    if (watchdog !== child) return;
    watchdog = undefined;
    // Lines written since it died are lost, and the groups still running need a watchdog now, not at the next
    // spawn: a replacement (which gets every tracked group) is started at once, at most one a second.
    if (tracked.size === 0) return;
    setTimeout(
      () => {
        if (!watchdog && tracked.size > 0) startWatchdog();
      },
      Math.max(0, startedAt + 1000 - Date.now()),
    ).unref();
  };
  child.once('error', forget);
  child.once('exit', forget);
  child.stdin?.on('error', () => undefined);
  child.unref();
  (child.stdin as Socket | null)?.unref();
  watchdog = child;
  for (const [pgid, grace] of tracked) send(`add ${pgid} ${grace}`);
}

/**
 * Starts the watchdog if it is not running (and can run here). Called before spawning a group, so that the
 * `add` follows the spawn in the same tick instead of after the watchdog's own spawn.
 */
export function ensureReaper(): void {
  if (!watchdog && isAvailable()) startWatchdog();
}

/**
 * Hands the process group `pgid` to the watchdog, which ends it (SIGTERM, SIGKILL after `graceMs`) if this
 * process dies before untrackProcessGroup(pgid). Does nothing where there is no /bin/sh.
 */
export function trackProcessGroup(pgid: number, graceMs: number): void {
  if (!Number.isInteger(pgid) || pgid <= 1 || !isAvailable()) return;
  const grace = Math.max(0, Math.ceil(graceMs / 1000));
  tracked.set(pgid, grace);
  if (watchdog) send(`add ${pgid} ${grace}`);
  else startWatchdog(); // lists every tracked group, this one included
}

/** The group is gone: its id may be reused from now on, so the watchdog must forget it. */
export function untrackProcessGroup(pgid: number): void {
  if (tracked.delete(pgid)) send(`del ${pgid}`);
}

/** The watchdog's pid, if one is running. For tests. */
export function reaperPid(): number | undefined {
  return watchdog?.pid;
}
