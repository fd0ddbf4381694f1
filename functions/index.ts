import type { AppServices } from '../shared/composition-root';
import type { AppFunction } from '../shared/composition/app-functions';
import type { HttpEndpoint } from '../shared/http/endpoint-definition';
import { editAnnouncement, readAnnouncement } from './announcement';
import { approveStep } from './announcements-approve';
import { apiDocsPage, apiDocsViewer } from './api-docs';
import { publishStep } from './announcements-publish';
import { rejectStep } from './announcements-reject';
import { submitStep } from './announcements-submit';
import { createAnnouncementDraft, listAnnouncementsEndpoint } from './announcements';
import { createChildSession } from './auth-child-session-create';
import { createAdultSession, deleteSession } from './auth-session';
import { deleteChildAccount, updateChildAccount } from './child-account';
import { listChildAccountActivity } from './children-activity';
import { listChildAccountConsents } from './children-consents';
import { deleteChildAccountSession } from './children-session-delete';
import { deleteChildAccountSessions, listChildAccountSessions } from './children-sessions';
import { createChildAccount, listChildAccounts } from './children';
import { communicationEvents } from './communication-events';
import { checkDailyCost } from './cost-check-timer';
import { settleDeliveries } from './delivery-settle-timer';
import { recoverFanoutBatches } from './fanout-recovery-timer';
import { health } from './health';
import { countIngressRequests } from './ingress-requests-timer';
import { exportOwnData } from './me-export';
import { patchNotificationPreferences, readNotificationPreferences } from './me-notification-preferences';
import { deletePushToken, putPushToken } from './me-push-tokens';
import { deleteOwnSession } from './me-session-delete';
import { deleteOwnSessions, listOwnSessions } from './me-sessions';
import { eraseOwnData, me } from './me';
import { notFoundFunction } from './not-found';
import { notificationFanout } from './notification-fanout';
import { openApiEndpoint } from './openapi';
import { checkReceipts } from './push-receipts-timer';
import { sampleApprovalQueue } from './queue-depth-timer';
import { ready } from './ready';
import { sweepSessions } from './session-sweep-timer';
import { approve } from './users-approve';
import { eraseUser } from './users-delete';
import { listUsers } from './users-list';
import { changeRole } from './users-role';

/**
 * Every function of the app, as the files of this folder declare them. Loading this module has no
 * effect beyond building the list: `registerApp` (shared/composition/app-functions.ts) registers
 * it, and `npm run openapi` writes the API document and the docs' endpoint table from it.
 */

/** The API's endpoints, in the order the OpenAPI document and the docs' table list them. */
export const API_ENDPOINTS: readonly HttpEndpoint<AppServices>[] = [
  createAdultSession,
  createChildSession,
  deleteSession,
  me,
  eraseOwnData,
  exportOwnData,
  listOwnSessions,
  deleteOwnSessions,
  deleteOwnSession,
  putPushToken,
  deletePushToken,
  readNotificationPreferences,
  patchNotificationPreferences,
  createChildAccount,
  listChildAccounts,
  updateChildAccount,
  deleteChildAccount,
  listChildAccountSessions,
  deleteChildAccountSessions,
  deleteChildAccountSession,
  listChildAccountActivity,
  listChildAccountConsents,
  listUsers,
  eraseUser,
  approve,
  changeRole,
  createAnnouncementDraft,
  listAnnouncementsEndpoint,
  readAnnouncement,
  editAnnouncement,
  submitStep,
  approveStep,
  rejectStep,
  publishStep,
  health,
  ready,
  openApiEndpoint(() => API_ENDPOINTS),
];

/**
 * The API reference page and its viewer: endpoints the OpenAPI document leaves out (they show the
 * document, answer HTML and script, and production answers them 404 unless a setting turns them on).
 */
export const API_REFERENCE_ENDPOINTS: readonly HttpEndpoint<AppServices>[] = [apiDocsPage, apiDocsViewer];

/** Every HTTP endpoint the app registers: what the catch-all's 405 and `Allow` are derived from. */
export const HTTP_ENDPOINTS: readonly HttpEndpoint<AppServices>[] = [...API_ENDPOINTS, ...API_REFERENCE_ENDPOINTS];

/** Everything the app registers: the endpoints, the catch-all, the timers, the queue and Event Grid functions. */
export const APP_FUNCTIONS: readonly AppFunction[] = [
  ...HTTP_ENDPOINTS,
  notFoundFunction(() => HTTP_ENDPOINTS),
  countIngressRequests,
  checkDailyCost,
  sweepSessions,
  sampleApprovalQueue,
  settleDeliveries,
  recoverFanoutBatches,
  checkReceipts,
  notificationFanout,
  communicationEvents,
];
