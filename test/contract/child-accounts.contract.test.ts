import { describeChildAccountsContract } from './child-accounts-contract';
import { describeOnEveryEngine } from './test-databases';

describeOnEveryEngine('Child accounts store contract', describeChildAccountsContract);
