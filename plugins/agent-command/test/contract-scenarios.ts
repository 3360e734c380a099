// The agent runner contract's inputs (run by the first-party contracts test), with real child processes (node itself as the agent CLI).
import { PluginRegistry } from '@hookwise/gateway';
import { agentRunnerContractCase } from '@hookwise/testing';
import plugin, { createCommandRunner, type CommandRunnerOptions } from '@hookwise/plugin-agent-command';

const scripts = {
  // Echoes the prompt it reads on stdin, so the answer shows what the runner sent.
  answer: "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>process.stdout.write('agent saw: '+s))",
  hang: 'setInterval(() => {}, 1000)',
  fail: "process.stderr.write('model unavailable');process.exit(3)",
};

export default agentRunnerContractCase(
  'command',
  ({ scenario, test }) => {
    const registry = new PluginRegistry([{ plugin, source: 'test', options: {} }]);
    const { options, problems } = registry.validateOptions(
      'agent',
      'command',
      { command: [process.execPath, '-e', scripts[scenario]], kill_grace_seconds: 1 },
      'agent',
    );
    expect(problems).toEqual([]);
    return createCommandRunner(options as unknown as CommandRunnerOptions, { ...test.ctx, env: { PATH: process.env.PATH } });
  },
  {
    expectAnswer: (text, task) => {
      expect(text).toContain('agent saw:');
      expect(text).toContain(task.prompt);
      expect(text).toContain('Answer in one line.');
    },
  },
);
