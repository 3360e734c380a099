// First-party plugins, loaded by default before the config's own `plugins:` list.
export const FIRST_PARTY_PLUGINS: readonly string[] = [
  '@hookwise/plugin-verifier-codehost-a',
  '@hookwise/plugin-verifier-codehost-b',
  '@hookwise/plugin-verifier-generic',
  '@hookwise/plugin-agent-command',
  '@hookwise/plugin-agent-openai',
  '@hookwise/plugin-deliverer-platform-06',
];
