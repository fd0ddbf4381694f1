import { describeDatabaseContract } from './database-contract';
import { describeOnEveryEngine } from './test-databases';

describeOnEveryEngine('Database contract', describeDatabaseContract);
