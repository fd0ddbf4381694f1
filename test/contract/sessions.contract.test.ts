import { describeSessionsContract } from './sessions-contract';
import { describeOnEveryEngine } from './test-databases';

describeOnEveryEngine('Sessions store contract', describeSessionsContract);
