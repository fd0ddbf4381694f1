import type { MigrationDefinition } from '../../migration';
import * as auditLog from './0001-audit-log';
import * as usersSessionsChildren from './0002-users-sessions-children';
import * as signInThrottle from './0003-sign-in-throttle';
import * as announcements from './0004-announcements';
import * as notifications from './0005-notifications';
import * as notificationOutbox from './0006-notification-outbox';
import * as canonicalIdentifiers from './0007-canonical-identifiers';
import * as deliveryReports from './0008-delivery-reports';
import * as audienceOrder from './0011-audience-order';
import * as deliveryFirstSent from './0014-delivery-first-sent';
import * as sessionActivity from './0009-session-activity';
import * as adultSignInThrottle from './0010-adult-sign-in-throttle';
import * as childConsents from './0012-child-consents';
import * as accountNotices from './0013-account-notices';
import * as accountErasure from './0015-account-erasure';
import * as fanoutClaim from './0016-fanout-claim';
import * as stalledDeliveryLeases from './0017-stalled-delivery-leases';
import * as fanoutMessageLeases from './0018-fanout-message-leases';
import * as noticeDeliveryLedger from './0019-notice-delivery-ledger';
import * as reportLookupIndex from './0020-report-lookup-index';
import * as pushTicketsInSendOrder from './0021-push-tickets-in-send-order';
import * as noticeDeliveryReports from './0022-notice-delivery-reports';

/** SQLite's migrations, in order; names match `../mssql/index.ts` one for one. */
export const sqliteMigrations: readonly MigrationDefinition[] = [
  { name: '0001-audit-log', up: auditLog.up },
  { name: '0002-users-sessions-children', up: usersSessionsChildren.up, down: usersSessionsChildren.down },
  { name: '0003-sign-in-throttle', up: signInThrottle.up, down: signInThrottle.down },
  { name: '0004-announcements', up: announcements.up, down: announcements.down },
  { name: '0005-notifications', up: notifications.up, down: notifications.down },
  { name: '0006-notification-outbox', up: notificationOutbox.up, down: notificationOutbox.down },
  { name: '0007-canonical-identifiers', up: canonicalIdentifiers.up, down: canonicalIdentifiers.down },
  { name: '0008-delivery-reports', up: deliveryReports.up, down: deliveryReports.down },
  { name: '0009-session-activity', up: sessionActivity.up, down: sessionActivity.down },
  { name: '0010-adult-sign-in-throttle', up: adultSignInThrottle.up, down: adultSignInThrottle.down },
  { name: '0011-audience-order', up: audienceOrder.up, down: audienceOrder.down },
  { name: '0012-child-consents', up: childConsents.up, down: childConsents.down },
  { name: '0013-account-notices', up: accountNotices.up, down: accountNotices.down },
  { name: '0014-delivery-first-sent', up: deliveryFirstSent.up, down: deliveryFirstSent.down },
  { name: '0015-account-erasure', up: accountErasure.up, down: accountErasure.down },
  { name: '0016-fanout-claim', up: fanoutClaim.up, down: fanoutClaim.down },
  { name: '0017-stalled-delivery-leases', up: stalledDeliveryLeases.up, down: stalledDeliveryLeases.down },
  { name: '0018-fanout-message-leases', up: fanoutMessageLeases.up, down: fanoutMessageLeases.down },
  { name: '0019-notice-delivery-ledger', up: noticeDeliveryLedger.up, down: noticeDeliveryLedger.down },
  { name: '0020-report-lookup-index', up: reportLookupIndex.up, down: reportLookupIndex.down },
  { name: '0021-push-tickets-in-send-order', up: pushTicketsInSendOrder.up, down: pushTicketsInSendOrder.down },
  { name: '0022-notice-delivery-reports', up: noticeDeliveryReports.up, down: noticeDeliveryReports.down },
];
