/**
 * cli tests: unit tests (src/**\/*.spec.ts) and tests against real tools (test/**\/*.test.ts), such as the DSC token
 * signer against a throwaway SoftHSMv2 token (needs softhsm2, opensc and openssl installed).
 *
 * The verify tests sign documents with @libpdf/core (the verifier's test PKI), which is published as ES modules only:
 * Jest's module loader cannot require those before Node 24.9, so Jest compiles them to CommonJS with Babel.
 */
const ESM_ONLY = ['@libpdf', '@noble', '@scure'];

module.exports = {
  rootDir: __dirname,
  testEnvironment: 'node',
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json' }],
    '^.+\\.m?js$': [
      'babel-jest',
      {
        babelrc: false,
        configFile: false,
        plugins: ['@babel/plugin-transform-dynamic-import', '@babel/plugin-transform-modules-commonjs'],
      },
    ],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${ESM_ONLY.join('|')})/)`],
  testTimeout: 60_000,
};
