import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { configurationPage } from '../shared/settings/configuration-page';

/**
 * `npm run docs:config`: writes docs/configuration.md from the settings' declarations (a test fails
 * while the committed page differs from what they generate).
 */
const target = path.resolve(__dirname, '../../docs/configuration.md');
writeFileSync(target, configurationPage());
process.stdout.write(`wrote ${path.relative(process.cwd(), target)}\n`);
