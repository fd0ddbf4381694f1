import { describeSignInThrottleContract } from './sign-in-throttle-contract';
import { describeOnEveryEngine } from './test-databases';

describeOnEveryEngine('Sign-in throttle store contract', describeSignInThrottleContract);
