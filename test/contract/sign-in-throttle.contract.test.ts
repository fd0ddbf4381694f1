import { describeAdultSignInThrottleContract } from './adult-sign-in-throttle-contract';
import { describeSignInThrottleContract } from './sign-in-throttle-contract';
import { describeOnEveryEngine } from './test-databases';

describeOnEveryEngine('Sign-in throttle store contract', describeSignInThrottleContract);
describeOnEveryEngine('Adult sign-in throttle contract', describeAdultSignInThrottleContract);
