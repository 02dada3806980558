import { formatDateTime } from '@esign/contract';
import { checkUrl, oneLine, render, shorten } from './templates';

/**
 * The e-mails to staff users (issue 22): an administrator's invitation and a password-reset link, both to the
 * set-password page. Pure functions like templates.ts (whose layout they share); e-mail only, no SMS. The link is the
 * user's password: it goes in the body, never in the subject, and is never logged.
 */
export interface StaffMessage {
  subject: string;
  text: string;
  html: string;
}

export interface StaffLinkInput {
  /** The organisation's display name. */
  orgName: string;
  /** The user's sign-in name. */
  username: string;
  /** The set-password page with the link's token. */
  url: string;
  /** When the link stops working. */
  expiresAt: Date;
  /** Who sent it (an administrator's username); the organisation speaks when absent. */
  sentBy?: string | null;
  /** The organisation's time zone for the expiry. */
  timeZone?: string | null;
}

const expiryNote = (i: StaffLinkInput) =>
  `The link works once, until ${formatDateTime(i.expiresAt, i.timeZone)}. If it has expired, ask your administrator for a new one.`;

export function userInvitation(i: StaffLinkInput): StaffMessage {
  const url = checkUrl(i.url);
  const who = i.sentBy ? `${i.sentBy} of ${i.orgName}` : i.orgName;
  const { text, html } = render({
    orgName: i.orgName,
    heading: `You are invited to ${i.orgName} on e-Sign`,
    paragraphs: [
      `Hello ${i.username},`,
      `${who} has invited you to send documents for signature on e-Sign. Your username is ${i.username}.`,
      'Choose your password to start:',
    ],
    action: { label: 'Set your password', url },
    notes: [expiryNote(i), 'If you were not expecting this invitation, ignore this e-mail.'],
  });
  return { subject: `Invitation to ${shorten(oneLine(i.orgName), 150)} on e-Sign`, text, html };
}

export function passwordReset(i: StaffLinkInput): StaffMessage {
  const url = checkUrl(i.url);
  const { text, html } = render({
    orgName: i.orgName,
    heading: 'Set a new password',
    paragraphs: [
      `Hello ${i.username},`,
      `${i.sentBy ? `${i.sentBy}, an administrator of ${i.orgName},` : `An administrator of ${i.orgName}`} asked for a new password for your e-Sign account (${i.username}).`,
      'Once you set it, you are signed out everywhere and sign in with the new password.',
    ],
    action: { label: 'Set a new password', url },
    notes: [expiryNote(i), 'If you did not expect this, tell your administrator.'],
  });
  return { subject: `Set a new password for e-Sign (${shorten(oneLine(i.orgName), 150)})`, text, html };
}
