// The `command` agent runner: runs an agent CLI per task, prompt on stdin or in argv, stdout is the answer.
import { delimiter, isAbsolute, resolve } from 'node:path';
import { HookwiseError, errorMessage, type AgentResult, type AgentRunner, type AgentTask, type PluginContext } from '@hookwise/core';
import { runProcess } from '@hookwise/kit';
import { PROMPT_PLACEHOLDER, type CommandRunnerOptions } from './options';
import { composePrompt } from './prompt-layout';
import { explainFailure, presetRun } from './presets';

// Enough of stderr to see why an agent failed, short enough for a log line and a dead-letter record.
const STDERR_TAIL_CHARS = 2000;

export function createCommandRunner(options: CommandRunnerOptions, ctx: PluginContext): AgentRunner {
  // A preset brings its own argv per task (flags, system prompt) and reads the answer from the CLI's JSON.
  const preset = presetRun(options);
  const [program, ...args] = preset ? [preset.program] : options.command!;
  if (program.includes(PROMPT_PLACEHOLDER)) {
    throw new HookwiseError('HW_E_CONFIG', `agent.command: the program name cannot be the ${PROMPT_PLACEHOLDER} placeholder; put it in an argument`);
  }
  const placeholderMode = args.some((a) => a.includes(PROMPT_PLACEHOLDER));
  const cwd = options.cwd ? (isAbsolute(options.cwd) ? options.cwd : resolve(ctx.configDir, options.cwd)) : ctx.configDir;

  return {
    async run(task: AgentTask, { signal }): Promise<AgentResult> {
      const text = preset ? preset.input(task) : composePrompt(task.prompt, task.skills);
      const env: NodeJS.ProcessEnv = {
        ...(options.inherit_env ? ctx.env : {}),
        // So that `hookwise webhook ...` run by the agent acts on this gateway's config dir.
        HOOKWISE_HOME: ctx.configDir,
        ...options.env,
        HOOKWISE_ROUTE: task.route,
        HOOKWISE_EVENT: task.event,
        HOOKWISE_DELIVERY_ID: task.deliveryId,
        HOOKWISE_SKILL_DIRS: task.skills.flatMap((s) => (s.dir ? [s.dir] : [])).join(delimiter),
      };
      const meta = { route: task.route, delivery_id: task.deliveryId };
      let result;
      try {
        result = await runProcess({
          command: program,
          // split/join, not replace(): a prompt containing `$&` must arrive verbatim.
          args: preset ? preset.args(task) : placeholderMode ? args.map((a) => a.split(PROMPT_PLACEHOLDER).join(text)) : args,
          input: placeholderMode ? undefined : text,
          cwd,
          env,
          timeoutMs: options.timeout_seconds ? options.timeout_seconds * 1000 : undefined,
          killGraceMs: options.kill_grace_seconds * 1000,
          maxOutputBytes: options.max_output_bytes,
          signal,
          onStderrLine: (line) => {
            if (line.trim()) ctx.logger.info(`[${program} stderr] ${line}`, meta);
          },
        });
      } catch (err) {
        throw new HookwiseError(
          'HW_E_AGENT',
          `agent command '${program}' could not be started in ${cwd}: ${errorMessage(err)}; check that it is installed and on PATH (or give an absolute path in agent.command) and that agent.cwd exists`,
          { retryable: false, cause: err },
        );
      }
      if (result.timedOut) {
        throw new HookwiseError('HW_E_AGENT_TIMEOUT', `agent command '${program}' exceeded its timeout_seconds (${options.timeout_seconds}s) and was killed with its child processes${stderrTail(result.stderr)}`, { retryable: true });
      }
      if (result.aborted) {
        throw new HookwiseError('HW_E_AGENT', `agent command '${program}' was stopped (${errorMessage(signal.reason ?? 'aborted')}) and killed with its child processes`, { retryable: true, cause: signal.reason });
      }
      if (result.exitCode !== 0) {
        const how = result.exitSignal ? `was killed by ${result.exitSignal}` : `exited with code ${result.exitCode}`;
        throw new HookwiseError('HW_E_AGENT', `agent command '${program}' ${how}${stderrTail(result.stderr)}${preset ? explainFailure(preset.preset, result.stdout) : ''}`, { retryable: true, details: { exitCode: result.exitCode, signal: result.exitSignal } });
      }
      let answer = result.stdout.trimEnd();
      if (result.stdoutTruncated) {
        ctx.logger.warn(`agent command '${program}' wrote more than max_output_bytes (${options.max_output_bytes}) to stdout; the answer was cut`, meta);
        answer += `\n\n[output cut at ${options.max_output_bytes} bytes]`;
      }
      return preset ? preset.preset.parse(result.stdout) : { text: answer };
    },
  };
}

function stderrTail(stderr: string): string {
  const trimmed = stderr.trim();
  if (!trimmed) return '';
  const tail = trimmed.length > STDERR_TAIL_CHARS ? `...${trimmed.slice(-STDERR_TAIL_CHARS)}` : trimmed;
  return `; stderr: ${tail}`;
}
