import type { Config } from 'jest';

// Tests run against the TypeScript sources (transpiled only; `tsc -b` type-checks). Workspace imports are
// mapped to each package's src so that no build is needed for unit tests; CLI process tests use the build.
const config: Config = {
  testEnvironment: 'node',
  roots: ['<rootDir>/packages', '<rootDir>/plugins', '<rootDir>/examples'],
  testMatch: ['**/test/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json' }] },
  moduleNameMapper: {
    '^@hookwise/plugin-(.*)$': '<rootDir>/plugins/$1/src',
    '^@hookwise/(core|gateway|kit|agent-kit|server|cli|testing|store-sqlite|store-redis|sandbox)$': '<rootDir>/packages/$1/src',
    // The kit's entry points by audience (package.json "exports" subpaths).
    '^@hookwise/kit/(source|platform)$': '<rootDir>/packages/kit/src/$1',
  },
  // Installs redis-server when it is missing and may be installed, or stops the run with the command to run.
  globalSetup: '<rootDir>/scripts/jest-global-setup.ts',
  testTimeout: 30_000,
  maxWorkers: 2,
  reporters: ['default', '<rootDir>/scripts/jest-summary-reporter.js'],
};

export default config;
