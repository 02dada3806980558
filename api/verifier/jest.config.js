/**
 * The verifier's tests: signed documents made in the tests with @libpdf/core at every PAdES level, against OpenSSL's
 * own TSA and OCSP responder (needs openssl). @libpdf/core is published as ES modules only, which Jest's module loader
 * cannot require before Node 24.9, so Jest compiles it (and its ESM-only dependencies) to CommonJS with Babel.
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
  // The shared PDF syntax reader from its source (as the API's Jest does), so the suite needs no build of it.
  moduleNameMapper: { '^@esign/pdf-syntax$': '<rootDir>/../pdf-syntax/src/index.ts' },
  testTimeout: 60_000,
};
