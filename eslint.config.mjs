// The project's lint: typescript-eslint's recommended rules over every TypeScript and JavaScript file
// (`npm run lint`, which `.ci/run` calls). A finding is fixed, or the line it stands on says why.
import { builtinModules } from 'node:module';
import { defineConfig, globalIgnores } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  globalIgnores(['dist/', 'bench/tmp/', '.tools/', '.data/', 'coverage/']),
  tseslint.configs.recommended,
  {
    rules: {
      // `const { secret: _secret, ...rest } = value` is how the code copies an object without a field
      // (a connection string, a password, a schema's $id): the named field is unused on purpose. A
      // parameter named `_options` is one an implementation takes to match its port and does not need,
      // the convention TypeScript itself honours.
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true, argsIgnorePattern: '^_' }],
    },
  },
  {
    // CommonJS files (package.json has no "type": "module", so every .js is one too): the scripts that run
    // before anything is built, a child process's script, the local host's fixture app. They have no import
    // statement to use.
    files: ['**/*.cjs', '**/*.js'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The API client runs in React Native and browsers: nothing of Node's in its sources (its tests and
    // scripts run on Node). Its tsconfig has no Node types either, so such code would not compile.
    files: ['clients/*/src/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['node:*', ...builtinModules], message: 'The client must run without Node: use fetch and the web platform.' }] }],
      'no-restricted-globals': ['error', ...['process', 'Buffer', 'require', '__dirname', '__filename', 'global', 'setImmediate'].map((name) => ({ name, message: 'Node only.' }))],
    },
  },
);
