#!/usr/bin/env node
// The hookwise command-line program (oclif).
require('@oclif/core')
  .execute({ dir: __dirname })
  .catch(require('@oclif/core/handle'));
