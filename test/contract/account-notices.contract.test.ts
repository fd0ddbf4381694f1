import { describeAccountNoticesContract } from './account-notices-contract';
import { describeOnEveryEngine } from './test-databases';

describeOnEveryEngine('Account notices contract', describeAccountNoticesContract);
