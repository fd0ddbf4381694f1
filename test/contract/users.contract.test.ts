import { describeUsersContract } from './users-contract';
import { describeOnEveryEngine } from './test-databases';

describeOnEveryEngine('Users store contract', describeUsersContract);
