import { describeAccountErasureContract } from './account-erasure-contract';
import { describeOnEveryEngine } from './test-databases';

describeOnEveryEngine('Account erasure contract', describeAccountErasureContract);
