import { describeAnnouncementsContract } from './announcements-contract';
import { describeOnEveryEngine } from './test-databases';

describeOnEveryEngine('Announcements store contract', describeAnnouncementsContract);
