import { describeAuditLogContract } from './audit-log-contract';
import { describeOnEveryEngine } from './test-databases';

describeOnEveryEngine('Audit log contract', describeAuditLogContract);
