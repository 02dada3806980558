import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import { createRequire } from 'node:module';
import tseslint from 'typescript-eslint';

const root = import.meta.dirname;
const { layers, leaves, exceptions } = createRequire(import.meta.url)('./api/module-layers.cjs');

/**
 * Imports between the API's modules run one way, down the layers of api/module-layers.cjs (ARCHITECTURE.md, "Modules
 * and the one-way rule"): one zone per module forbids the modules of its own layer and of the layers above, and one per
 * leaf (common, config, database) forbids every module. `excused` lifts, for one file, the modules its listed
 * exception names; nothing else. api/test/module-boundaries.test.ts shows the rule failing a backward import.
 */
function moduleZones(excused = []) {
  const dir = (m) => `api/src/modules/${m}`;
  const zones = layers.flatMap((layer, i) =>
    layer.map((m) => ({
      target: dir(m),
      from: layers
        .slice(0, i + 1)
        .flat()
        .filter((other) => other !== m && !excused.includes(other))
        .map(dir),
      message: `${m} is in layer ${i + 1} of api/module-layers.cjs: it imports only from the layers below (issue 20).`,
    })),
  );
  const leafZones = leaves
    .filter((l) => l !== 'contract')
    .map((l) => ({
      target: `api/src/${l}`,
      from: layers
        .flat()
        .filter((m) => !excused.includes(m))
        .map(dir),
      message: `${l} is below every module (api/module-layers.cjs): it imports none (issue 20).`,
    }));
  return [...zones, ...leafZones].filter((zone) => zone.from.length > 0);
}
const boundaries = (excused) => ['error', { basePath: root, zones: moduleZones(excused) }];

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      'data/**',
      '**/test-results/**',
      '**/playwright-report/**',
      'api/src/database/migrations/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // Migrations and registries list classes as Function.
      '@typescript-eslint/no-unsafe-function-type': 'off',
    },
  },
  {
    // Nest injects by the constructor parameters' types, emitted as decorator metadata: those imports are values.
    files: ['api/**/*.ts', 'cli/**/*.ts'],
    languageOptions: { parserOptions: { emitDecoratorMetadata: true, experimentalDecorators: true } },
  },
  {
    files: ['api/src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js', '.json', '.node'] })],
    },
    rules: { 'import-x/no-restricted-paths': boundaries() },
  },
  // The backward imports that remain (api/module-layers.cjs, issue 20): each file may reach only the modules listed.
  ...exceptions.map(({ file, imports }) => ({
    files: [file],
    rules: { 'import-x/no-restricted-paths': boundaries(imports) },
  })),
  {
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    languageOptions: {
      globals: {
        require: 'readonly',
        module: 'writable',
        __dirname: 'readonly',
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        fetch: 'readonly',
        setTimeout: 'readonly',
        URL: 'readonly',
        FormData: 'readonly',
        Blob: 'readonly',
        performance: 'readonly',
      },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  prettier,
);
