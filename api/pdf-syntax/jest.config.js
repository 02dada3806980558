/** The reader's unit tests (src/**\/*.spec.ts): no tools needed, the shared fixtures read from disk. */
module.exports = {
  rootDir: __dirname,
  testEnvironment: 'node',
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json' }] },
  testTimeout: 60_000,
};
