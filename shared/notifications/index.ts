/**
 * The notifications subsystem's entry point: what the functions, the composition root and the
 * command-line programs use. Everything else in `shared/notifications/` is its own floors
 * (providers → ledger → engine → channels → jobs, ARCHITECTURE.md), which only tests and the bench
 * reach into, to exercise one floor on its own.
 */
export { applyCommunicationEvent } from './jobs/apply-communication-event';
export { checkPushReceipts } from './jobs/check-push-receipts';
export { handleFanoutMessage, type FanoutAttempt, type FanoutResult } from './jobs/handle-fanout-message';
export { storagePoisonQueue, type PoisonQueue } from './jobs/poison-queue';
export { redrivePoison, type RedriveOptions } from './jobs/redrive-poison';
export { redriveStalledBatches } from './jobs/redrive-stalled-batches';
export { redriveStalledMessages } from './jobs/redrive-stalled-messages';
export { recordingFanoutQueue, recordingNoticeQueue } from './engine/message-leasing';
export { settleAcceptedDeliveries } from './jobs/settle-accepted-deliveries';
export { DEFAULT_DELIVERY_CONCURRENCY, type FanoutDeps, type SmsSpendSettings } from './engine/fanout-deps';
export { createDeliveryProviders, type BuiltDeliveryProviders } from './providers/create-delivery-providers';
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from './providers/retry-transient';
export { changePreferences, getPreferences, registerDevice, unregisterDevice } from './preferences/notification-settings';
