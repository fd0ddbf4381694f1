import { describeDeliveryReportsContract } from './delivery-reports-contract';
import { describeMessageLeasesContract } from './message-leases-contract';
import { describeNotificationAudienceContract } from './notification-audience-contract';
import { describeNotificationDeliveryContract } from './notification-delivery-contract';
import { describeNotificationPoisonContract } from './notification-poison-contract';
import { describeOnEveryEngine } from './test-databases';

describeOnEveryEngine('Notification stores contract', (name, factory) => {
  describeNotificationDeliveryContract(name, factory);
  describeNotificationAudienceContract(name, factory);
  describeDeliveryReportsContract(name, factory);
  describeNotificationPoisonContract(name, factory);
  describeMessageLeasesContract(name, factory);
});
