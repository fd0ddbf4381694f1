import { app } from '@azure/functions';
import { backgroundHandler } from '../shared/background/background-handler';
import { appFanoutDeps, FANOUT_SERVICE_NAME } from '../shared/composition/fanout-services';
import { applyCommunicationEvent } from '../shared/notifications/reports/apply-communication-event';

/**
 * Azure Communication Services events through Event Grid (issue 9): SMS delivery reports, reply
 * SMS (STOP / START) and e-mail delivery reports settle the delivery ledger, the number's opt-out
 * and the bounce list. The host answers Event Grid's subscription handshake and hands over one
 * event per invocation, in either schema. A malformed or foreign event is acknowledged (retrying
 * would not help); a database failure throws, so Event Grid delivers the event again.
 */
export const communicationEvents = backgroundHandler<unknown>(
  'communication-events',
  appFanoutDeps,
  async (event) => {
    await applyCommunicationEvent(event, appFanoutDeps());
  },
  { service: FANOUT_SERVICE_NAME },
);

app.eventGrid<unknown>('communication-events', { handler: communicationEvents });
