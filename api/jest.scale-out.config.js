/**
 * The scale-out tests (test/scale-out/*.test.ts): real API nodes (api/dist, built first), the worker, MariaDB, Redis,
 * an S3 server and nginx started by test/scale-out/cluster.ts. Not part of the main suite (jest.config.js ignores
 * them). Run in api/:  npx jest -c jest.scale-out.config.js
 */
const base = require('./jest.config.js');

module.exports = {
  rootDir: __dirname,
  testEnvironment: 'node',
  testMatch: ['<rootDir>/test/scale-out/**/*.test.ts'],
  transform: base.transform,
  transformIgnorePatterns: base.transformIgnorePatterns,
  moduleNameMapper: base.moduleNameMapper,
  testTimeout: 600_000,
  // Each file starts its own cluster of processes: one file at a time.
  maxWorkers: 1,
};
