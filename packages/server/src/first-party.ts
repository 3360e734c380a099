// First-party plugins, loaded by default before the config's own `plugins:` list.
export const FIRST_PARTY_PLUGINS: readonly string[] = [
  '@hookwise/plugin-verifier-codehost-a',
  '@hookwise/plugin-verifier-codehost-b',
  '@hookwise/plugin-verifier-generic',
  '@hookwise/plugin-agent-command',
  '@hookwise/plugin-agent-openai',
  '@hookwise/plugin-deliverer-platform-11',
  '@hookwise/plugin-deliverer-codehost-a-comment',
  '@hookwise/plugin-deliverer-platform-01',
  '@hookwise/plugin-deliverer-platform-02',
  '@hookwise/plugin-deliverer-platform-03',
  '@hookwise/plugin-deliverer-platform-04',
  '@hookwise/plugin-deliverer-platform-05',
  '@hookwise/plugin-deliverer-platform-06',
  '@hookwise/plugin-deliverer-platform-07',
  '@hookwise/plugin-deliverer-platform-12',
  '@hookwise/plugin-deliverer-platform-08',
];
