const { join } = require('node:path');

/**
 * Unit tests (src/**\/*.spec.ts) and medium tests against a real database (test/**\/*.test.ts). DB_ENGINE picks the
 * engine: sqlite (default) or mariadb, for which test/support/global-setup.ts starts a throwaway MariaDB server.
 *
 * NestJS 12 is published as ES modules only. Node 20.19+ loads them with require() (that is how the built server runs),
 * but Jest's module loader cannot before Node 24.9, so Jest compiles those packages to CommonJS with Babel.
 */
const ESM_ONLY = [
  '@nestjs',
  'file-type',
  'strtok3',
  'token-types',
  'peek-readable',
  '@tokenizer',
  'uint8array-extras',
  '@libpdf',
  '@noble',
  '@scure',
];

module.exports = {
  rootDir: __dirname,
  testEnvironment: 'node',
  // The unit tests (src/**/*.spec.ts) touch no database: the SQLite pass runs them, the MariaDB pass runs only the
  // tests against the database (about 200 s of the workers' time).
  testMatch:
    process.env.DB_ENGINE === 'mariadb'
      ? ['<rootDir>/test/**/*.test.ts']
      : ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/test/scale-out/', '/test/security/', '/test/reliability/'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json' }],
    '^.+\\.m?js$': [
      'babel-jest',
      {
        babelrc: false,
        configFile: false,
        plugins: [
          join(__dirname, 'test/support/babel-import-meta.js'),
          '@babel/plugin-transform-dynamic-import',
          '@babel/plugin-transform-modules-commonjs',
        ],
      },
    ],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${ESM_ONLY.join('|')})/)`],
  moduleNameMapper: {
    '^@esign/contract$': join(__dirname, 'contract/src/index.ts'),
    '^@esign/pdf-syntax$': join(__dirname, 'pdf-syntax/src/index.ts'),
    '^@esign/verifier$': join(__dirname, 'verifier/src/index.ts'),
  },
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 60_000,
  maxWorkers: 2,
};
