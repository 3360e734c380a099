// The plugin object the gateway loads (its name, version and API from package.json): the pagerduty source; and its API.
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { pagerDutySource } from './pagerduty';

export * from './pagerduty';
export * from './payload-schema';

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [pagerDutySource] });
