// ESLint (flat config): JavaScript's and typescript-eslint's recommended rules; formatting is
// Prettier's job alone (eslint-config-prettier turns off the rules that would disagree with it).
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'coverage/',
      'data/',
      'src/generated/',
      'test/gql/',
      'examples/client/gql/',
      'bench/results/',
      'bench/peer/.node22/',
      '**/node_modules/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      globals: { console: 'readonly', process: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly' },
    },
    rules: {
      // `_` marks a parameter kept for its position (TypeGraphQL's `_returns => Type`, Fastify hooks).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // CommonJS scripts run by Node directly.
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', module: 'writable', __dirname: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The explorer page's script runs in the browser, as served (no build step).
    files: ['src/graphql/explorer.browser.js'],
    languageOptions: {
      sourceType: 'script',
      globals: {
        window: 'readonly',
        document: 'readonly',
        Promise: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
      },
    },
  },
  {
    // Tests hold deliberate oddities: ids beyond 2^53 sent as JSON numbers, loosely typed response bodies.
    files: ['test/**/*.ts'],
    rules: { 'no-loss-of-precision': 'off', '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Small functions (issue 29): no function of src/ over 100 lines, nested functions counted in
    // their parent's length, blank lines and comments included. A longer one is split into named
    // functions that each take the slice of the configuration they use (docs/architecture.md).
    files: ['src/**/*.ts'],
    rules: {
      'max-lines-per-function': ['error', { max: 100, skipBlankLines: false, skipComments: false, IIFEs: true }],
    },
  },
  {
    // Input validation matches control characters on purpose.
    files: ['src/common/validation.ts'],
    rules: { 'no-control-regex': 'off' },
  },
  prettier,
);
