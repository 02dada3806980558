/**
 * The security suite (test/security/*.test.ts, `npm run test:security`): tenant isolation and link checks on every
 * route, brute force, secrets in logs, a corpus of mutated uploads, headers, the ESP response parser. It runs on
 * SQLite in-process apps (test/support/test-app.ts) and is not part of the DB_ENGINE suites (jest.config.js ignores it).
 */
const base = require('./jest.config.js');

module.exports = {
  ...base,
  testMatch: ['<rootDir>/test/security/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/'],
};
