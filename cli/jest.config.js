/**
 * cli tests: unit tests (src/**\/*.spec.ts) and tests against real tools (test/**\/*.test.ts), such as the DSC token
 * signer against a throwaway SoftHSMv2 token (needs softhsm2, opensc and openssl installed).
 */
module.exports = {
  rootDir: __dirname,
  testEnvironment: 'node',
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json' }] },
  testTimeout: 60_000,
};
