import type { PushMessage } from '../../ports/delivery';
import { ANNOUNCEMENT_LEDGER, type LeasedLedger } from '../ledger/leased-rows';
import type { SubjectFacts } from './delivery-report';

/**
 * What a context delivers besides its text: the ledger its rows are in, how its log lines name it,
 * the `data` of its push messages, and the space of its e-mails' operation ids. An announcement's
 * by default (`announcementSubject`); an account notice's is `handle-notice-message.ts`'s. Push
 * tickets (`PushTickets`, whose rows name an announcement) are kept for announcements only: a
 * notice's push is settled by Expo's answer alone.
 */
export interface DeliverySubject {
  ledger: LeasedLedger;
  facts: SubjectFacts;
  pushData: PushMessage['data'];
  /**
   * Put before the subject's id in its e-mails' operation ids (`email-operation-id.ts`): an account
   * notice's have always been derived from `notice:<id>`, so a row claimed before keeps its id.
   */
  operationIdSpace: string;
}

/** The subject of an announcement's deliveries. */
export function announcementSubject(announcementId: string): DeliverySubject {
  return { ledger: ANNOUNCEMENT_LEDGER, facts: { announcementId }, pushData: { announcementId }, operationIdSpace: '' };
}
