// The set-up every conversation test repeats: a stand-in agent that echoes its prompt, written to a temp dir of its
// own (outside the config dir, which the gateway owns), a temp config dir that outlives a restart, a real gateway
// on the platform stand-ins' URLs, the signed generic alert that starts a conversation, and cleanup after the file.
// Each test keeps its platform's payloads, its stand-in's answers and its assertions.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ECHO_PROMPT_AGENT,
  postSigned,
  startRecordingServer,
  startTestGateway,
  waitFor,
  type RecordingServer,
  type Responder,
  type TestGateway,
} from '@hookwise/testing';

export interface ConversationHarness {
  /** The `agent:` block that runs the echo-prompt stand-in (answers `ECHO[<prompt>]`). */
  readonly agent: { runner: 'command'; command: string[] };
  /** The script's path, for a test that builds its own `agent:` block. */
  readonly agentScript: string;
  /** The config dir: kept across a restart (the SQLite file lives there), removed after the file's tests. */
  readonly configDir: string;
  /** The gateway `start` started last. */
  readonly gw: TestGateway;
  /** A platform API stand-in, closed after the file's tests. */
  startApi(responder: Responder): Promise<RecordingServer>;
  /** Starts a gateway on `config` in the config dir (polling every 20 ms unless `pollMs` is given). */
  start(config: Record<string, unknown>, pollMs?: number): Promise<TestGateway>;
  /** POSTs `{title}` to a generic route, signed with the harness's alert secret, with X-Request-Id when given. */
  alert(route: string, title: string, requestId?: string): ReturnType<TestGateway['post']>;
  /**
   * A generic route signed with the alert secret (prompt `Alert: {title}`) whose answers `deliver` sends to `chat`,
   * with conversations turned on and set as `conversation` says.
   */
  answeredRoute(deliver: string, chat: string, conversation: Record<string, unknown>): Record<string, unknown>;
  /** How many answers of `route` the gateway has delivered (its `delivered ... on route` log lines). */
  delivered(route: string): number;
  /** Waits (20 s unless told) until `probe` holds; the error shows the gateway's log. */
  waitFor(what: string, probe: () => boolean, timeoutMs?: number): Promise<void>;
}

/**
 * Call at the top of a test file: `name` tells its temp dirs apart, `alertSecret` is the secret of its generic
 * routes (none for a file whose conversations start from a platform's own event). Registers an afterAll that stops the gateway, closes the stand-ins and removes both dirs.
 */
export function conversationHarness(name: string, alertSecret?: string): ConversationHarness {
  const agentDir = mkdtempSync(join(tmpdir(), `hookwise-conv-${name}-agent-`));
  const agentScript = join(agentDir, 'echo-prompt.js');
  writeFileSync(agentScript, ECHO_PROMPT_AGENT);
  const configDir = mkdtempSync(join(tmpdir(), `hookwise-conv-${name}-`));
  const apis: RecordingServer[] = [];
  let current: TestGateway | undefined;

  afterAll(async () => {
    await current?.stop();
    for (const api of apis) await api.close();
    rmSync(configDir, { recursive: true, force: true });
    rmSync(agentDir, { recursive: true, force: true });
  });

  const harness: ConversationHarness = {
    agent: { runner: 'command', command: [process.execPath, agentScript] },
    agentScript,
    configDir,
    get gw(): TestGateway {
      if (!current) throw new Error('no gateway yet: call start(config) in beforeAll first');
      return current;
    },
    async startApi(responder) {
      const api = await startRecordingServer(responder);
      apis.push(api);
      return api;
    },
    async start(config, pollMs = 20) {
      // startTestGateway's default env clears WEBHOOK_PORT/SECRET/ENABLED/HOST, so the config alone decides.
      current = await startTestGateway({ config, configDir, pollMs });
      return current;
    },
    alert(route, title, requestId) {
      if (alertSecret === undefined) throw new Error('alert() needs the alert secret: pass it to conversationHarness(name, alertSecret)');
      return postSigned(harness.gw, route, alertSecret, { title }, requestId);
    },
    answeredRoute(deliver, chat, conversation) {
      if (alertSecret === undefined) throw new Error('answeredRoute() needs the alert secret: pass it to conversationHarness(name, alertSecret)');
      return {
        secret: alertSecret,
        prompt: 'Alert: {title}',
        deliver,
        deliver_extra: { chat_id: chat },
        conversation: { enabled: true, ...conversation },
      };
    },
    delivered: (route) => harness.gw.logs.filter((l) => new RegExp(`^delivered .* on route '${route}'`).test(String(l.message))).length,
    async waitFor(what, probe, timeoutMs) {
      await waitFor(what, probe, { timeoutMs, detail: () => `log so far:\n${current?.logText() ?? '(no gateway)'}` });
    },
  };
  return harness;
}
