import path from 'node:path';
import { entryPointFiles } from '../devhost/load-app';

/**
 * The entry file of the bench's function app: the production app exactly as package.json `main`
 * lists it, plus the bench-only `{}` endpoint, in one process and one composition root. The bench
 * runs the local host with an app root whose `main` names this file (see `bench-host.ts`).
 */
const projectRoot = path.resolve(__dirname, '..', '..');

for (const file of entryPointFiles(projectRoot)) require(file);
require('./functions/empty');
