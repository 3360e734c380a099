// The `command` agent runner: runs an agent CLI per task, prompt on stdin or in argv, stdout is the answer. The
// CLI starts through the run's sandbox (AgentTask.sandbox), in its work dir: never in the config dir.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import {
  HookwiseError,
  isHookwiseError,
  errorMessage,
  type AgentProgramCheck,
  type AgentResult,
  type AgentRunner,
  type AgentSandboxNeeds,
  type AgentSpawnPlan,
  type AgentTask,
  type PluginContext,
} from '@hookwise/core';
import { MAX_ARG_BYTES, ProcessInputError, childEnvironment, runProcess } from '@hookwise/kit';
import { PROMPT_PLACEHOLDER, type CommandRunnerOptions } from './options';
import { composePrompt } from './prompt-layout';
import { explainFailure, presetRun } from './presets';
import { PRESET_SANDBOX, presetSandboxNeeds, privateHome } from './preset-sandbox';
import { copyLogin, dropLogin, loginHome } from './preset-login';
import { checkProgram, findProgram, programBindings } from './program-lookup';
import { presetChannelArgs, runChannelOf, type ChannelArgs } from './preset-actions';
import { replayingFailedResume } from './preset-resume';

// Enough of stderr to see why an agent failed, short enough for a log line and a dead-letter record.
const STDERR_TAIL_CHARS = 2000;
// What of a run's stderr goes to the log as it comes: its first lines, each cut, up to a byte budget; then one
// line saying the rest was not logged, and one at the end counting it. 50 MB of short lines stay a few lines.
const STDERR_LOG_LINES = 20;
const STDERR_LOG_BYTES = 8 * 1024;
const STDERR_LOG_LINE_CHARS = 1000;

/** `env:` as the allowlist and the values to set: a list of NAME / NAME=value, or a map of values. */
function envOption(env: CommandRunnerOptions['env']): { allow: string[]; set: Record<string, string> } {
  if (!env) return { allow: [], set: {} };
  if (!Array.isArray(env)) return { allow: [], set: { ...env } };
  const allow: string[] = [];
  const set: Record<string, string> = {};
  for (const entry of env) {
    const at = entry.indexOf('=');
    if (at < 0) allow.push(entry);
    else set[entry.slice(0, at)] = entry.slice(at + 1);
  }
  return { allow, set };
}

/**
 * The index of each argument that is exactly `{prompt}` and has no `--` before it: there, a prompt starting with
 * `-` would be read as an option by the agent (`--dangerously-skip-permissions` in an issue title).
 */
function optionExposedArgs(args: readonly string[]): number[] {
  const endOfOptions = args.indexOf('--');
  return args.flatMap((arg, index) => (arg === PROMPT_PLACEHOLDER && (endOfOptions < 0 || index < endOfOptions) ? [index] : []));
}

/** Why the prompt cannot go to the child as configured, or undefined. Not retryable: the same payload fails again. */
function promptProblem(program: string, text: string, placeholderMode: boolean, exposed: readonly number[]): string | undefined {
  if (!placeholderMode) return undefined;
  if (text.includes('\u0000')) {
    return `the prompt contains a NUL byte (from the payload), which cannot be passed in a command-line argument; send the prompt on stdin (remove ${PROMPT_PLACEHOLDER} from agent.command) or leave that field out of the route's prompt`;
  }
  const bytes = Buffer.byteLength(text);
  if (bytes >= MAX_ARG_BYTES) {
    return `the prompt is ${bytes} bytes, more than one command-line argument can hold (${MAX_ARG_BYTES - 1}); send it on stdin (remove ${PROMPT_PLACEHOLDER} from agent.command) or shorten the route's prompt template`;
  }
  if (exposed.length && text.startsWith('-')) {
    return `the prompt starts with '-', so ${program} would read it as an option; put "--" before ${PROMPT_PLACEHOLDER} in agent.command (if ${program} supports it), write it as part of an option (--message=${PROMPT_PLACEHOLDER}), or send the prompt on stdin`;
  }
  return undefined;
}

export function createCommandRunner(options: CommandRunnerOptions, ctx: PluginContext): AgentRunner {
  // A preset brings its own argv per task (flags, system prompt) and reads the answer from the CLI's JSON.
  const preset = presetRun(options);
  const [program, ...args] = preset ? [preset.program] : options.command!;
  if (program.includes(PROMPT_PLACEHOLDER)) {
    throw new HookwiseError('HW_E_CONFIG', `agent.command: the program name cannot be the ${PROMPT_PLACEHOLDER} placeholder; put it in an argument`);
  }
  const placeholderMode = args.some((a) => a.includes(PROMPT_PLACEHOLDER));
  // agent.cwd is the run's work dir (shared by its runs); unset, each run gets a fresh one.
  const cwd = options.cwd ? (isAbsolute(options.cwd) ? options.cwd : resolve(ctx.configDir, options.cwd)) : undefined;
  if (cwd && isWithin(resolve(cwd), resolve(ctx.configDir))) {
    throw new HookwiseError(
      'HW_E_CONFIG',
      `agent.cwd '${options.cwd}' is ${resolve(cwd) === resolve(ctx.configDir) ? 'the config dir' : 'inside the config dir'} (${ctx.configDir}), whose .env, config and store an agent must never see; point it at a project directory outside it, or leave it out for a fresh work dir per run`,
    );
  }
  const exposed = optionExposedArgs(args);
  const { allow, set } = envOption(options.env);
  const presetEnv = preset ? [...preset.preset.env, ...PRESET_SANDBOX[options.preset!].env] : [];
  // A subscription login (./preset-login): the home it is copied from, checked at startup.
  const loginFrom = options.login_from === undefined ? undefined : loginHome(options.preset, options.login_from, ctx.env);
  const needsOf = (route: string | undefined): AgentSandboxNeeds => ({
    ...(preset ? presetSandboxNeeds(options.preset!, route, ctx.env, loginFrom !== undefined) : {}),
    ...(cwd ? { workDir: resolve(cwd) } : {}),
  });
  // Where the program is, looked up per run: it may be installed after the gateway started.
  const programPath = () => findProgram(program, ctx.env, ctx.configDir);

  const runner: AgentRunner = {
    sandboxNeeds: (route) => withConfiguredFiles(needsOf(route), programPath(), preset ? [] : args, ctx.configDir),
    check: (): Promise<AgentProgramCheck> => checkProgram(program, ctx.env, ctx.configDir, preset?.preset.install),
    async run(task: AgentTask, { signal }): Promise<AgentResult> {
      const text = preset ? preset.input(task) : composePrompt(task.prompt, task.skills);
      // A clean environment: the basics, what `env:` lists, and nothing secret unless listed.
      // No HOOKWISE_HOME: the agent has no business in the config dir (self-subscription goes through the gateway).
      const found = programPath();
      // A preset's CLI keeps its settings and sessions in the route's own home, never the operator's (the sandbox
      // sets HOME to it as well; this covers unsandboxed runs).
      const home = preset ? privateHome(options.preset!, task.route, ctx.env) : undefined;
      const env = childEnvironment(ctx.env, {
        allow: [...allow, ...presetEnv],
        inherit: options.inherit_env,
        isSecret: ctx.isSecret,
        set: {
          ...set,
          HOOKWISE_ROUTE: task.route,
          HOOKWISE_EVENT: task.event,
          HOOKWISE_DELIVERY_ID: task.deliveryId,
          HOOKWISE_SKILL_DIRS: task.skills.flatMap((s) => (s.dir ? [s.dir] : [])).join(delimiter),
          ...(home && { HOME: home }),
        },
      });
      // A CLI found under a user prefix (~/.local/bin, nvm) finds its interpreter (`#!/usr/bin/env node`) beside it.
      if (found && !(env.PATH ?? '').split(delimiter).includes(dirname(found))) env.PATH = [env.PATH, dirname(found)].filter(Boolean).join(delimiter);
      const meta = { route: task.route, delivery_id: task.deliveryId };
      const refused = promptProblem(program, text, placeholderMode, exposed);
      if (refused) throw new HookwiseError('HW_E_AGENT', `agent command '${program}' was not started: ${refused}`, { retryable: false });
      // Outside a gateway's worker (no sandbox in the task): unsandboxed, in agent.cwd or a fresh directory.
      const local = task.sandbox ? undefined : await localWorkDir(cwd);
      let channel: ChannelArgs | undefined;
      let result;
      let plan: AgentSpawnPlan | undefined;
      let stderrLog: ReturnType<typeof boundedStderrLog> | undefined;
      // agent.max_output_kb when the gateway gives it, else the runner's max_output_bytes.
      const maxOutput = task.sandbox?.limits?.maxOutputBytes ?? options.max_output_bytes;
      const outputSetting =
        task.sandbox?.limits?.maxOutputBytes !== undefined ? `agent.max_output_kb (${maxOutput / 1024} KiB)` : `max_output_bytes (${maxOutput})`;
      try {
        // The route's actions, when it lists any: the preset's CLI is pointed at the run's job channel.
        channel = preset ? await presetChannelArgs(options.preset!, runChannelOf(task.sandbox), task.sandbox?.workDir ?? local!.dir) : undefined;
        // The login's copy, afresh for this run; none when the model proxy serves the run (the CLI has its token).
        if (loginFrom !== undefined && home) {
          const proxied = task.sandbox?.plan('true', [], {}).env.HOOKWISE_MODEL_PROXY_URL !== undefined;
          if (proxied) dropLogin(options.preset!, home);
          else copyLogin(options.preset!, loginFrom, home);
        }
        const command = found ?? program;
        // The environment as the CLI will have it: the run's sandbox may change it (the model proxy's URL and
        // token in place of the key), and what the preset points the CLI at must follow (Codex's provider entry).
        const follows = preset?.preset.environmentArgs ?? preset?.preset.homeFiles;
        const seen = task.sandbox && follows ? task.sandbox.plan(command, [], env).env : env;
        if (home && preset?.preset.homeFiles) Object.assign(env, preset.preset.homeFiles(home, seen));
        // split/join, not replace(): a prompt containing `$&` must arrive verbatim.
        const extra = preset ? [...(preset.preset.environmentArgs?.(seen) ?? []), ...(channel?.args ?? [])] : [];
        const argv = preset ? preset.args(task, extra) : placeholderMode ? args.map((a) => a.split(PROMPT_PLACEHOLDER).join(text)) : args;
        plan = task.sandbox ? task.sandbox.plan(command, argv, env) : { command, args: [...argv], env, cwd: local!.dir };
        // The agent's own text on its way to the log: the gateway's outbound scrub (credential-named variables too).
        stderrLog = boundedStderrLog(program, (line) => ctx.logger.info(ctx.scrub ? ctx.scrub(line) : line, meta));
        result = await runProcess({
          command: plan.command,
          args: plan.args,
          input: placeholderMode ? undefined : text,
          cwd: plan.cwd,
          env: plan.env,
          timeoutMs: options.timeout_seconds ? options.timeout_seconds * 1000 : undefined,
          killGraceMs: options.kill_grace_seconds * 1000,
          maxOutputBytes: maxOutput,
          maxStderrBytes: maxOutput,
          signal,
          onStderrLine: stderrLog.line,
        });
        stderrLog.end(result.stderrBytes);
      } catch (err) {
        if (err instanceof ProcessInputError) {
          // The event type or delivery id (sender-chosen) in HOOKWISE_*, or a configured argument: not a missing program.
          throw new HookwiseError(
            'HW_E_AGENT',
            `agent command '${program}' was not started: ${err.message}${err.where.startsWith('environment variable HOOKWISE_') ? ' (it comes from the request)' : ''}`,
            { retryable: false, cause: err },
          );
        }
        if ((err as NodeJS.ErrnoException).code === 'E2BIG') {
          throw new HookwiseError(
            'HW_E_AGENT',
            `agent command '${program}' was not started: its arguments and environment together are larger than the system allows (E2BIG); send the prompt on stdin (remove ${PROMPT_PLACEHOLDER} from agent.command)`,
            { retryable: false, cause: err },
          );
        }
        // The preset's own refusals (a missing login file, an operator config it cannot read) say what is wrong.
        if (isHookwiseError(err)) throw err;
        throw new HookwiseError(
          'HW_E_AGENT',
          `agent command '${program}' could not be started in ${plan?.cwd ?? cwd ?? 'its work dir'}: ${errorMessage(err)}; check that it is installed and on PATH (or give an absolute path in agent.command) and that agent.cwd exists`,
          { retryable: false, cause: err },
        );
      } finally {
        await channel?.close();
        await local?.close();
      }
      if (result.timedOut) {
        throw new HookwiseError(
          'HW_E_AGENT_TIMEOUT',
          `agent command '${program}' exceeded its timeout_seconds (${options.timeout_seconds}s) and was killed with its child processes${stderrTail(result.stderr)}`,
          { retryable: true },
        );
      }
      if (result.aborted) {
        throw new HookwiseError(
          'HW_E_AGENT',
          `agent command '${program}' was stopped (${errorMessage(signal.reason ?? 'aborted')}) and killed with its child processes`,
          { retryable: true, cause: signal.reason },
        );
      }
      if (result.exitCode !== 0) {
        const how = result.exitSignal ? `was killed by ${result.exitSignal}` : `exited with code ${result.exitCode}`;
        // A memory or process limit of the sandbox: said so, with the setting to raise; the same run would reach it again.
        const limit = task.sandbox?.limitReached?.({ exitCode: result.exitCode, exitSignal: result.exitSignal, stderr: result.stderr });
        if (limit) {
          throw new HookwiseError('HW_E_AGENT', `agent command '${program}' ${how}: ${limit}${stderrTail(result.stderr)}`, {
            retryable: false,
            details: { exitCode: result.exitCode, signal: result.exitSignal },
          });
        }
        // The CLI's own account first (its JSON says what failed and whether it can clear); stderr after it.
        const said = preset && !result.exitSignal ? explainFailure(preset.preset, result.stdout) : { text: '', retryable: true };
        throw new HookwiseError('HW_E_AGENT', `agent command '${program}' ${how}${said.text}${stderrTail(result.stderr)}`, {
          retryable: said.retryable,
          details: { exitCode: result.exitCode, signal: result.exitSignal },
        });
      }
      let answer = result.stdout.trimEnd();
      if (result.stdoutTruncated) {
        ctx.logger.warn(`agent command '${program}' wrote ${result.stdoutBytes} bytes to stdout, more than ${outputSetting}; the answer was cut`, meta);
        answer += `\n\n[output cut at ${maxOutput} bytes]`;
      }
      return preset ? preset.preset.parse(result.stdout) : { text: answer };
    },
  };
  // A resumed CLI session that is gone: the run goes again with the history (./preset-resume).
  return preset ? replayingFailedResume(runner, (task) => preset.resumes(task) !== undefined, preset.preset.title, ctx.logger) : runner;
}

/**
 * Logs the first lines of a run's stderr (at most STDERR_LOG_LINES lines and STDERR_LOG_BYTES, each line cut at
 * STDERR_LOG_LINE_CHARS), then one line saying the rest is not logged; end() adds a count of what was not.
 */
function boundedStderrLog(program: string, log: (line: string) => void): { line(line: string, cutBytes: number): void; end(totalBytes: number): void } {
  let lines = 0;
  let bytes = 0;
  let skippedLines = 0;
  let full = false;
  let cutAny = false;
  return {
    line(line, cutBytes) {
      if (!line.trim() && cutBytes === 0) return;
      if (full) {
        skippedLines++;
        return;
      }
      const shown = line.length > STDERR_LOG_LINE_CHARS ? `${line.slice(0, STDERR_LOG_LINE_CHARS)}...` : line;
      const cut = cutBytes > 0 || shown !== line ? ' [line cut]' : '';
      if (cut) cutAny = true;
      log(`[${program} stderr] ${shown}${cut}`);
      lines++;
      bytes += shown.length;
      if (lines >= STDERR_LOG_LINES || bytes >= STDERR_LOG_BYTES) {
        full = true;
        log(`[${program} stderr] (further stderr of this run is not logged line by line)`);
      }
    },
    end(totalBytes) {
      if (full || cutAny)
        log(
          `[${program} stderr] ${totalBytes} bytes of stderr in all, ${skippedLines} more line(s) not logged, long lines cut (a failure message carries its tail)`,
        );
    },
  };
}

function stderrTail(stderr: string): string {
  const trimmed = stderr.trim();
  if (!trimmed) return '';
  const tail = trimmed.length > STDERR_TAIL_CHARS ? `...${trimmed.slice(-STDERR_TAIL_CHARS)}` : trimmed;
  return `; stderr: ${tail}`;
}

/** System directories every sandbox already sees read-only: a program or file there needs no binding. */
const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib64', '/etc'];

/**
 * The program (found as a shell would, ./program-lookup) and the existing files the absolute-path arguments of a
 * plain command name (`node /opt/agent/run.js`), made readable inside the sandbox: the user chose them, and without
 * them a command that works unsandboxed would fail sandboxed. A program outside the system directories brings its
 * directory and, for an npm-installed CLI, the node_modules it lives in. Paths in the config dir are left out: the
 * sandbox hides it whole.
 */
function withConfiguredFiles(needs: AgentSandboxNeeds, program: string | undefined, args: readonly string[], configDir: string): AgentSandboxNeeds {
  const extra = new Set<string>();
  const add = (p: string) => {
    if (!SYSTEM_DIRS.some((dir) => isWithin(p, dir)) && !isWithin(p, resolve(configDir))) extra.add(p);
  };
  if (program) programBindings(program).forEach(add);
  for (const arg of args) if (isAbsolute(arg) && existsSync(arg)) add(arg); // a bind follows a link to its file
  return extra.size ? { ...needs, readOnly: [...(needs.readOnly ?? []), ...extra] } : needs;
}

/** True when `path` is `parent` or lies under it. */
function isWithin(path: string, parent: string): boolean {
  const rel = relative(parent, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** agent.cwd, else a fresh directory removed after the run. */
async function localWorkDir(cwd: string | undefined): Promise<{ dir: string; close(): Promise<void> }> {
  if (cwd) return { dir: cwd, close: async () => undefined };
  const dir = await mkdtemp(join(tmpdir(), 'hookwise-run-'));
  return { dir, close: () => rm(dir, { recursive: true, force: true }) };
}
