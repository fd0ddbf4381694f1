import { defineBackgroundFunction } from '../shared/composition/app-functions';
import { FANOUT_SERVICE_NAME, fanoutDepsOf } from '../shared/composition/fanout-services';
import { applyCommunicationEvent } from '../shared/notifications';

/**
 * Azure Communication Services events through Event Grid: SMS delivery reports, reply SMS (STOP /
 * START) and e-mail delivery reports settle the delivery ledgers (announcements' and account
 * notices'), the number's opt-out and the bounce list. The host answers Event Grid's subscription handshake and hands over one event per
 * invocation, in either schema. A malformed or foreign event is acknowledged (retrying would not
 * help); a database failure throws, so Event Grid delivers the event again.
 */
export const communicationEvents = defineBackgroundFunction({
  kind: 'event-grid',
  name: 'communication-events',
  logsWith: { deps: fanoutDepsOf, service: FANOUT_SERVICE_NAME },
  handler: async (services, event) => {
    await applyCommunicationEvent(event, fanoutDepsOf(services));
  },
});
