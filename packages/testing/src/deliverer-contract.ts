// Jest contract tests for a Deliverer: call describeDelivererContract() from a plugin's own test file.
/// <reference types="jest" />
// Each case gets a fresh local stand-in API (a recording server) and a test plugin context; the factory
// builds the deliverer against them for a scenario: a delivery that works, a failure worth retrying, a
// permanent one.
import { isHookwiseError, type Deliverer, type DeliveryMessage, type Receipt } from '@hookwise/core';
import { createTestPluginContext, type TestPluginContext } from './plugin-context';
import { startRecordingServer, type RecordedRequest, type RecordingServer, type ScriptedReply } from './recording-server';

export type DelivererScenario = 'deliver' | 'retryable' | 'permanent';

export interface DelivererWorld {
  /** Local stand-in for the destination's API; point `api_base` (or equivalent) at `server.url`. */
  server: RecordingServer;
  test: TestPluginContext;
  scenario: DelivererScenario;
}

export interface DelivererContractOptions {
  /** What the stand-in API answers in each scenario (defaults: 200 {}, 503, 400). */
  api?: (req: RecordedRequest, scenario: DelivererScenario) => ScriptedReply | Promise<ScriptedReply>;
  /** `deliver_extra` of the test message, e.g. { chat_id: '42' }. */
  extra?: Record<string, string>;
  /** Credentials the deliverer is built with: they must appear in no error message and no log line. */
  secrets?: string[];
  /** Checks the kit cannot know, run after a successful delivery. */
  verifyDelivered?(world: DelivererWorld, receipt: Receipt, message: DeliveryMessage): void | Promise<void>;
  /** Whether the message text must reach the stand-in API verbatim (default true; false for non-HTTP deliverers). */
  textReachesApi?: boolean;
  /** Scenarios the deliverer cannot be put into here; their cases are skipped. */
  skip?: Array<'retryable' | 'permanent' | 'abort' | 'start'>;
}

const DEFAULT_REPLIES: Record<DelivererScenario, ScriptedReply> = {
  deliver: { status: 200, json: {} },
  retryable: { status: 503, json: { error: 'service unavailable' }, headers: { 'retry-after': '1' } },
  permanent: { status: 400, json: { error: 'bad request' } },
};

export function describeDelivererContract(
  name: string,
  factory: (world: DelivererWorld) => Deliverer | Promise<Deliverer>,
  options: DelivererContractOptions = {},
): void {
  const skip = new Set(options.skip ?? []);
  const text = `hookwise-contract-${process.pid}-answer`;
  const message = (): DeliveryMessage => ({ text, route: 'contract', event: 'push', deliveryId: `contract-${Date.now()}`, extra: { ...options.extra } });
  let world: DelivererWorld | undefined;

  async function build(scenario: DelivererScenario): Promise<{ deliverer: Deliverer; world: DelivererWorld }> {
    const server = await startRecordingServer((req) => (options.api ? options.api(req, scenario) : DEFAULT_REPLIES[scenario]));
    world = { server, test: createTestPluginContext(), scenario };
    return { deliverer: await factory(world), world };
  }

  function expectNoSecrets(textToCheck: string): void {
    for (const secret of options.secrets ?? []) if (secret) expect(textToCheck).not.toContain(secret);
  }

  async function failureOf(deliverer: Deliverer, signal = new AbortController().signal) {
    const outcome = await deliverer.deliver(message(), { signal, attempt: 1 }).then(
      (receipt) => ({ receipt, err: undefined as unknown }),
      (err: unknown) => ({ receipt: undefined, err }),
    );
    expect(outcome.receipt).toBeUndefined();
    expect(isHookwiseError(outcome.err)).toBe(true);
    return outcome.err as import('@hookwise/core').HookwiseError;
  }

  describe(`${name}: deliverer contract`, () => {
    afterEach(async () => {
      await world?.server.close();
      world = undefined;
    });

    it('has deliver(), and start()/stop() only as functions', async () => {
      const { deliverer } = await build('deliver');
      expect(typeof deliverer.deliver).toBe('function');
      for (const hook of ['start', 'stop'] as const) {
        if (deliverer[hook] !== undefined) expect(typeof deliverer[hook]).toBe('function');
      }
    });

    (skip.has('start') ? it.skip : it)('starts against a working destination, delivers, and returns a receipt', async () => {
      const { deliverer, world: w } = await build('deliver');
      await deliverer.start?.();
      const msg = message();
      const receipt = await deliverer.deliver(msg, { signal: new AbortController().signal, attempt: 1 });
      expect(typeof receipt).toBe('object');
      expect(receipt).not.toBeNull();
      if (receipt.target !== undefined) expect(typeof receipt.target).toBe('string');
      if (receipt.ids !== undefined) {
        expect(Array.isArray(receipt.ids)).toBe(true);
        for (const id of receipt.ids) expect(typeof id).toBe('string');
      }
      if (options.textReachesApi ?? true) {
        expect(w.server.requests.length).toBeGreaterThan(0);
        expect(w.server.requests.some((r) => r.body.includes(text))).toBe(true);
      }
      await options.verifyDelivered?.(w, receipt, msg);
      expectNoSecrets(w.test.logs.join('\n'));
      await deliverer.stop?.();
    });

    (skip.has('retryable') ? it.skip : it)('throws a HookwiseError with retryable: true when the destination is temporarily down', async () => {
      const { deliverer, world: w } = await build('retryable');
      const err = await failureOf(deliverer);
      expect(err.retryable).toBe(true);
      expect(err.message.trim()).not.toBe('');
      expectNoSecrets(`${err.message}\n${w.test.logs.join('\n')}`);
    });

    (skip.has('permanent') ? it.skip : it)('throws a HookwiseError with retryable: false when the destination refuses the message', async () => {
      const { deliverer, world: w } = await build('permanent');
      const err = await failureOf(deliverer);
      expect(err.retryable).toBe(false);
      expect(err.message.trim()).not.toBe('');
      expectNoSecrets(`${err.message}\n${w.test.logs.join('\n')}`);
    });

    (skip.has('abort') ? it.skip : it)('does not deliver when its AbortSignal is already aborted, and fails retryably', async () => {
      const { deliverer } = await build('deliver');
      const controller = new AbortController();
      controller.abort(new Error('gateway shutting down'));
      const err = await failureOf(deliverer, controller.signal);
      // Cancelled by shutdown, not refused: the job must be tried again after a restart.
      expect(err.retryable).toBe(true);
    });
  });
}

/**
 * A first-party deliverer's contract as data (its test/contract-scenarios.ts default-exports one): the stand-in
 * API's answers and how the deliverer is built. packages/testing's first-party contracts test runs them all.
 */
export interface DelivererContractCase {
  kind: 'deliverer';
  name: string;
  factory: (world: DelivererWorld) => Deliverer | Promise<Deliverer>;
  options?: DelivererContractOptions;
}

export function delivererContractCase(name: string, factory: DelivererContractCase['factory'], options?: DelivererContractOptions): DelivererContractCase {
  return { kind: 'deliverer', name, factory, options };
}
