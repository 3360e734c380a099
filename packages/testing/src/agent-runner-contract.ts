// Jest contract tests for an AgentRunner: call describeAgentRunnerContract() from a plugin's own test file.
/// <reference types="jest" />
// The factory builds the runner for a scenario: one that answers, one that would run until stopped (to
// prove the AbortSignal is honoured), one that fails. A local stand-in API is there for HTTP runners.
import { isHookwiseError, type AgentRunner, type AgentTask, type HookwiseError } from '@hookwise/core';
import { createTestPluginContext, type TestPluginContext } from './plugin-context';
import { startRecordingServer, type RecordedRequest, type RecordingServer, type ScriptedReply } from './recording-server';

export type AgentScenario = 'answer' | 'hang' | 'fail';

export interface AgentWorld {
  /** Local stand-in for a model API; point the runner's base URL at `server.url`. */
  server: RecordingServer;
  test: TestPluginContext;
  scenario: AgentScenario;
}

export interface AgentRunnerContractOptions {
  /**
   * What the stand-in API answers in each scenario. For 'hang' the kit never answers when this returns
   * undefined, so the run can only end through the AbortSignal.
   */
  api?: (req: RecordedRequest, scenario: AgentScenario) => ScriptedReply | undefined | Promise<ScriptedReply | undefined>;
  /** Checks the answer of the 'answer' scenario (default: a non-empty string). */
  expectAnswer?(text: string, task: AgentTask, world: AgentWorld): void | Promise<void>;
  /** Credentials the runner is built with: they must appear in no error message and no log line. */
  secrets?: string[];
  skip?: Array<'hang' | 'fail'>;
}

const never = <T>(): Promise<T> => new Promise<T>(() => undefined);

export function describeAgentRunnerContract(
  name: string,
  factory: (world: AgentWorld) => AgentRunner | Promise<AgentRunner>,
  options: AgentRunnerContractOptions = {},
): void {
  const skip = new Set(options.skip ?? []);
  const task = (): AgentTask => ({
    prompt: 'Summarise: the build on main is green (contract test).',
    skills: [{ name: 'contract-skill', description: 'A skill document the runner must accept', body: 'Answer in one line.' }],
    route: 'contract',
    event: 'push',
    deliveryId: `contract-${Date.now()}`,
  });
  let world: AgentWorld | undefined;
  let runner: AgentRunner | undefined;

  async function build(scenario: AgentScenario): Promise<{ runner: AgentRunner; world: AgentWorld }> {
    const server = await startRecordingServer(async (req) => {
      const reply = options.api ? await options.api(req, scenario) : undefined;
      return reply ?? (scenario === 'hang' ? never<ScriptedReply>() : { status: scenario === 'fail' ? 500 : 200, json: {} });
    });
    world = { server, test: createTestPluginContext(), scenario };
    runner = await factory(world);
    return { runner, world };
  }

  async function rejection(promise: Promise<unknown>): Promise<unknown> {
    const outcome = await promise.then(
      (value) => ({ value, err: undefined as unknown, rejected: false }),
      (err: unknown) => ({ value: undefined, err, rejected: true }),
    );
    expect(outcome).toMatchObject({ rejected: true });
    return outcome.err;
  }

  function expectNoSecrets(textToCheck: string): void {
    for (const secret of options.secrets ?? []) if (secret) expect(textToCheck).not.toContain(secret);
  }

  describe(`${name}: agent runner contract`, () => {
    afterEach(async () => {
      await runner?.stop?.();
      await world?.server.close();
      world = undefined;
      runner = undefined;
    });

    it('has run(), and stop() only as a function', async () => {
      const { runner: r } = await build('answer');
      expect(typeof r.run).toBe('function');
      if (r.stop !== undefined) expect(typeof r.stop).toBe('function');
    });

    it('answers a task with skills as { text: string }', async () => {
      const { runner: r, world: w } = await build('answer');
      const t = task();
      const result = await r.run(t, { signal: new AbortController().signal });
      expect(typeof result).toBe('object');
      expect(typeof result.text).toBe('string');
      if (options.expectAnswer) await options.expectAnswer(result.text, t, w);
      else expect(result.text.trim()).not.toBe('');
      expectNoSecrets(w.test.logs.join('\n'));
    });

    (skip.has('hang') ? it.skip : it)('stops a running task when its AbortSignal fires, rejecting with a retryable HookwiseError', async () => {
      const { runner: r } = await build('hang');
      const controller = new AbortController();
      const running = r.run(task(), { signal: controller.signal });
      // Give the run a chance to get going (spawn a process, open a request) before stopping it.
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setTimeout(resolve, 50));
      controller.abort(new Error('gateway shutting down'));
      const err = await rejection(running);
      expect(isHookwiseError(err)).toBe(true);
      expect((err as HookwiseError).retryable).toBe(true);
    });

    (skip.has('hang') ? it.skip : it)('rejects at once when the AbortSignal is already aborted', async () => {
      const { runner: r } = await build('hang');
      const controller = new AbortController();
      controller.abort(new Error('gateway shutting down'));
      const err = await rejection(r.run(task(), { signal: controller.signal }));
      expect(isHookwiseError(err)).toBe(true);
    });

    (skip.has('fail') ? it.skip : it)('fails with a HookwiseError that says whether a retry may help', async () => {
      const { runner: r, world: w } = await build('fail');
      const err = await rejection(r.run(task(), { signal: new AbortController().signal }));
      expect(isHookwiseError(err)).toBe(true);
      expect(typeof (err as HookwiseError).retryable).toBe('boolean');
      expect((err as HookwiseError).message.trim()).not.toBe('');
      expectNoSecrets(`${(err as HookwiseError).message}\n${w.test.logs.join('\n')}`);
    });
  });
}

/**
 * A first-party agent runner's contract as data (its test/contract-scenarios.ts default-exports one), run with
 * the others by packages/testing's first-party contracts test.
 */
export interface AgentRunnerContractCase {
  kind: 'agent';
  name: string;
  factory: (world: AgentWorld) => AgentRunner | Promise<AgentRunner>;
  options?: AgentRunnerContractOptions;
}

export function agentRunnerContractCase(
  name: string,
  factory: AgentRunnerContractCase['factory'],
  options?: AgentRunnerContractOptions,
): AgentRunnerContractCase {
  return { kind: 'agent', name, factory, options };
}
