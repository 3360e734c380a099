// Which files of /etc are private is read when a command of a run is planned (just before it is spawned), not when
// the run is opened: a run whose runner spawns nothing (an in-process agent, the echo runner) never walks /etc,
// and one that spawns walks it once per command, as late as it can. It was walked at the open as well, to check
// the run's paths: about 6 ms of the gateway's CPU per job on a machine's /etc of 1,200 entries.
import * as masks from '../../src/system-masks';
import { openSandboxRun, type SandboxDecision } from '../../src';

const decision: SandboxDecision = { mode: 'required', sandboxed: true, reason: 'test', bwrapPath: '/usr/bin/bwrap' };

afterEach(() => jest.restoreAllMocks());

it('opens a sandboxed run without walking /etc, and walks it for each command planned', async () => {
  const walk = jest.spyOn(masks, 'unreadableByOthers');
  const run = await openSandboxRun({ decision, label: 'etc walk', network: [] });
  try {
    expect(walk).not.toHaveBeenCalled();
    const planned = run.plan('/bin/true', [], { PATH: '/usr/bin:/bin' });
    expect(walk).toHaveBeenCalledTimes(1);
    expect(planned.args).toContain('/etc');
    run.plan('/bin/true', [], { PATH: '/usr/bin:/bin' });
    expect(walk).toHaveBeenCalledTimes(2);
  } finally {
    await run.close();
  }
});

it('still refuses a bad path when the run is opened, before anything is planned', async () => {
  await expect(openSandboxRun({ decision, label: 'bad path', network: [], readOnly: ['relative/path'] })).rejects.toThrow(/not an absolute path/);
});
