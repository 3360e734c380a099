export { run } from '@oclif/core';
// The distribution's plugin list, for hosts and tests that open a gateway the way `hookwise gateway run` does.
export { FIRST_PARTY_DIR, FIRST_PARTY_PLUGINS, loadFirstPartyPlugins } from './first-party';
export { DEFAULT_SOURCES, agentCliInstallation, distributionOptions, type DistributionOptions } from './distribution';
