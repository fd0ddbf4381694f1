import { describeChildSignInContract } from './child-sign-in-contract';
import { describeOnEveryEngine } from './test-databases';

describeOnEveryEngine('Child sign-in contract', describeChildSignInContract);
