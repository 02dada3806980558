/**
 * Issue 24: what an organisation's administrators are told by e-mail (every user with role admin, an e-mail address
 * and not disabled). A module queues an `notify.admins` job with the notice in the same transaction as the change it
 * reports (a webhook disabled, the watchdog's findings); the notifications module runs it. The type lives here, below
 * both, because webhooks and notifications sit on one layer and may not import each other (ARCHITECTURE.md).
 */
export const ADMIN_NOTICE_JOB = 'notify.admins';

/** A webhook was disabled after its deliveries kept failing. */
export interface WebhookDisabledNotice {
  kind: 'webhook-disabled';
  webhookId: string;
  url: string;
  /** WebhookMessages' reason, with the last error. */
  reason: string;
  disabledAt: string;
}

/** One thing the watchdog found that it could not move by itself. */
export interface StuckItem {
  refId: number;
  filename: string;
  /** The finding's kind (WATCHDOG_FINDING_KINDS of the contract). */
  kind: string;
  /** What is wrong, in a sentence. */
  detail: string;
  partyOrder: number | null;
}

/** The watchdog's report: requests that should have moved and did not. */
export interface WatchdogNotice {
  kind: 'watchdog';
  items: StuckItem[];
}

export type AdminNotice = WebhookDisabledNotice | WatchdogNotice;

export interface AdminNoticePayload {
  orgId: string;
  notice: AdminNotice;
}
