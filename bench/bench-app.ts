import path from 'node:path';
import { entryPointFiles } from '../devhost/load-app';

/**
 * The entry file of the bench's function app: the production app exactly as package.json `main`
 * lists it, plus the bench-only `{}` endpoint, in one process and one composition root. The bench
 * runs the local host with an app root whose `main` names this file (see `bench-host.ts`).
 */
const projectRoot = path.resolve(__dirname, '..', '..');

// The entry files are found at run time and loaded in order, as the Functions host loads `main`: no static import can name them.
// eslint-disable-next-line @typescript-eslint/no-require-imports
for (const file of entryPointFiles(projectRoot)) require(file);
// After the app's own files, as the host would load a further entry file.
// eslint-disable-next-line @typescript-eslint/no-require-imports
require('./functions/empty');
