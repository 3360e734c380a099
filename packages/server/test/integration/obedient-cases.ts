// The obedient agent's cases (issue 29), shared by the command agent and the terminal tool's run: each case's
// shell lines go to the agent through a payload and its answer, the destination and the host side are checked.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { probeSandbox } from '@hookwise/sandbox';
import { BOT_TOKEN, CONFIG_CANARY, DOTENV_CANARY, GATEWAY_ENV_CANARY, WEBHOOK_SECRET, scripts, type Mode, type ObedientGateway } from './obedient-gateway';

const probe = probeSandbox();

/**
 * The cases of issue 29's "Done means" for one kind of obedient agent, once per mode: with `required` each is
 * stopped, with `off` each leaks (so that the assertions can fail). `start` opens the rig for a mode.
 */
export function obedientCases(agent: string, start: (mode: Mode) => Promise<ObedientGateway>): void {
  describe.each<Mode>(['required', 'off'])(`${agent} with agent.sandbox.mode %s`, (mode) => {
    const sandboxed = mode === 'required';
    let gw: ObedientGateway | undefined;
    let skip: string | undefined;

    beforeAll(async () => {
      const found = await probe;
      // Where bubblewrap cannot run, `required` refuses to start (obedient-agent.test.ts); .ci/run installs it.
      if (sandboxed && !found.available) {
        skip = found.reason;
        return;
      }
      gw = await start(mode);
    }, 60_000);

    afterAll(async () => {
      await gw?.stop();
    });

    /** Runs the case's lines; undefined when skipped. */
    async function answer(script: keyof ReturnType<typeof scripts>): Promise<string | undefined> {
      if (skip) {
        console.warn(`skipped (${mode}): ${skip}`);
        return undefined;
      }
      return gw!.run(scripts(gw!)[script]);
    }

    it(
      sandboxed ? 'cannot read the config dir’s .env' : 'reads the config dir’s .env (the leak)',
      async () => {
        const text = await answer('dotenv');
        if (text === undefined) return;
        if (sandboxed) expect(text).not.toContain(DOTENV_CANARY);
        else expect(text).toContain(`LEAK_CANARY=${DOTENV_CANARY}`);
        // Registered secrets never reach the destination: scrubbed from the answer even when read.
        expect(text).not.toContain(WEBHOOK_SECRET);
        expect(text).not.toContain(BOT_TOKEN);
      },
      40_000,
    );

    it(
      sandboxed ? 'cannot read config.yaml or the SQLite store' : 'reads config.yaml and the SQLite store (the leak)',
      async () => {
        const config = await answer('config');
        const store = await answer('store');
        if (config === undefined || store === undefined) return;
        if (sandboxed) {
          expect(config).not.toContain(CONFIG_CANARY);
          expect(store).not.toContain('SQLite format 3');
        } else {
          expect(config).toContain(CONFIG_CANARY);
          expect(store).toContain('SQLite format 3');
        }
      },
      40_000,
    );

    it(
      sandboxed ? 'cannot see the gateway’s environment' : 'sees the gateway’s environment through /proc (the leak)',
      async () => {
        const text = await answer('environ');
        if (text === undefined) return;
        expect(text).toContain('environ-done');
        if (sandboxed) expect(text).not.toContain(GATEWAY_ENV_CANARY);
        else expect(text).toContain(`GATEWAY_ENV_CANARY=${GATEWAY_ENV_CANARY}`);
      },
      40_000,
    );

    it(
      sandboxed ? 'sends no request to a loopback server the route did not list' : 'reaches an unlisted loopback server (the leak)',
      async () => {
        const text = await answer('unlisted');
        if (text === undefined) return;
        if (sandboxed) {
          expect(gw!.unlisted.requests).toHaveLength(0);
          // The proxy names what to change.
          expect(text).toContain('status 403');
        } else {
          expect(gw!.unlisted.requests.map((r) => r.path)).toContain('/direct');
          expect(text).toContain('/direct: status 200');
        }
      },
      40_000,
    );

    it('reaches the host listed in agent.sandbox.network', async () => {
      const text = await answer('listed');
      if (text === undefined) return;
      expect(text).toContain('/listed: status 200');
      expect(gw!.listed.requests.map((r) => r.path)).toContain('/listed');
    }, 40_000);

    it(
      sandboxed ? 'writes in its work dir and creates no file outside it' : 'writes in its work dir, the config dir and elsewhere (the leak)',
      async () => {
        const text = await answer('writes');
        if (text === undefined) return;
        expect(text).toContain('written-in-workdir');
        // The host side, not what the agent believes.
        expect(existsSync(join(gw!.dir, 'planted.txt'))).toBe(!sandboxed);
        expect(existsSync(join(gw!.outside, 'planted.txt'))).toBe(!sandboxed);
      },
      40_000,
    );

    // Last: with mode off it ends the gateway.
    it(
      sandboxed ? 'cannot kill the gateway' : 'kills the gateway with kill -9 (the leak)',
      async () => {
        if (skip) return console.warn(`skipped (${mode}): ${skip}`);
        if (sandboxed) {
          const text = await gw!.run(scripts(gw!).kill);
          expect(text).not.toContain('kill-exit-0');
          expect(gw!.child.exitCode).toBeNull();
          expect(gw!.child.signalCode).toBeNull();
          expect(await gw!.health()).toBe(200);
        } else {
          const exited = new Promise((resolve) => gw!.child.once('exit', (_code, signal) => resolve(signal)));
          await expect(gw!.run(scripts(gw!).kill)).rejects.toThrow('no answer');
          expect(await exited).toBe('SIGKILL');
          expect(await gw!.health()).toMatch(/^unreachable/);
        }
      },
      40_000,
    );
  });
}
