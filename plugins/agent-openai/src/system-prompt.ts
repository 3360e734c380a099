// The system message: what the agent is, the untrusted-input warning, the terminal tool's rules, then the skills.
import { UNTRUSTED_INPUT_NOTE, formatSkills } from '@hookwise/kit';
import { type Skill } from '@hookwise/core';

export interface SystemPromptTools {
  terminal?: { cwd: string; timeoutSeconds: number; maxOutputBytes: number; allow?: readonly string[] };
}

export function buildSystemPrompt(skills: readonly Skill[], tools: SystemPromptTools): string {
  const parts = [
    'You are an automated agent run by Hookwise, a webhook gateway. Your final message is the answer: it is delivered as written (to a log, a pull-request comment or a chat), so make it self-contained.',
    UNTRUSTED_INPUT_NOTE,
  ];
  const t = tools.terminal;
  if (t) {
    let rule = `You can run shell commands with the \`terminal\` tool: one command per call, run by /bin/sh in ${t.cwd}, stopped after ${t.timeoutSeconds}s, output cut at ${t.maxOutputBytes} bytes. Use it only when the task needs it.`;
    if (t.allow) rule += ` Only commands starting with one of these prefixes are allowed, without shell operators: ${t.allow.join(', ')}.`;
    parts.push(rule);
  }
  const block = formatSkills(skills);
  if (block) parts.push(block);
  return parts.join('\n\n');
}
