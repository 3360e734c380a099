// The hookwise package: the `hookwise` command (bin/hookwise.js) with every first-party plugin as a dependency,
// so that `npm install -g hookwise` installs a gateway that runs. As a library it offers what the CLI offers.
export { run } from '@hookwise/cli';
