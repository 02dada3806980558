/**
 * The reliability tests (test/reliability/*.test.ts, `npm run test:reliability`): the built server (api/dist) on
 * SQLite killed and restarted during signing, and 200 signers at once. Started by test/scale-out/cluster.ts; not part
 * of the DB_ENGINE suites (jest.config.js ignores them).
 */
const base = require('./jest.scale-out.config.js');

module.exports = { ...base, testMatch: ['<rootDir>/test/reliability/**/*.test.ts'] };
