#!/usr/bin/env node
// The `hookwise` command of the hookwise package: the CLI of @hookwise/cli, which this package installs with
// every first-party plugin.
require('@hookwise/cli/bin/run.js');
