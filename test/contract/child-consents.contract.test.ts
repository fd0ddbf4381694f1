import { describeChildConsentsContract } from './child-consents-contract';
import { describeOnEveryEngine } from './test-databases';

describeOnEveryEngine('Child consents contract', describeChildConsentsContract);
