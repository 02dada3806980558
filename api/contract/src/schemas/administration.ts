/** The organisation's administration (issue 22): users, set-password links, the seal, deliveries, request actions. */
import { z } from 'zod';
import {
  AdminMessages,
  DELIVERY_SORT_FIELDS,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  USER_ROLES,
  USER_SORT_FIELDS,
  USERNAME_PATTERN,
  USERNAME_RULE,
} from '../administration';
import { isEmail } from '../validation';
import { Messages } from '../messages';
import { absentable, reportsEveryIssue, strictFields, withCode } from './core';
import { listQueryFor } from './lists';

const role = z.enum(USER_ROLES, { error: `role must be one of the following values: ${USER_ROLES.join(', ')}` });
const email = z.string({ error: 'email must be a string' }).trim().toLowerCase().refine(isEmail, Messages.invalidEmail);

/** POST /api/users: invite a staff user by e-mail (a link to set the password is sent; no password is taken here). */
export const inviteUserSchema = reportsEveryIssue(
  strictFields({
    username: z
      .string({ error: 'username must be a string' })
      .trim()
      .toLowerCase()
      .regex(USERNAME_PATTERN, USERNAME_RULE),
    email,
    role: absentable(role),
  }).meta({ examples: [{ username: 'ravi', email: 'ravi@example.in', role: 'staff' }] }),
);
export type InviteUserInput = z.output<typeof inviteUserSchema>;

/** PUT /api/users/{id}: change the role, disable or re-enable, change the e-mail. */
export const updateUserSchema = reportsEveryIssue(
  strictFields({
    role: absentable(role),
    disabled: absentable(z.boolean({ error: 'disabled must be true or false' })),
    email: absentable(email),
  }).meta({ examples: [{ role: 'admin' }, { disabled: true }] }),
);
export type UpdateUserInput = z.output<typeof updateUserSchema>;

/** POST /api/users/{id}/password-link: e-mail the user a link to set a new password; no body. */
export const passwordLinkSchema = strictFields({}).meta({ examples: [{}] });

/** A user's id in a path (`/api/users/{id}`): longer than an id can be is no user (404). */
export const userIdParamSchema = z
  .string()
  .refine((id) => id.length <= 36, {
    error: (issue) => AdminMessages.userNotFound.replace('{id}', String(issue.input).slice(0, 64)),
    params: withCode('NOT_FOUND'),
  })
  .meta({ description: "The user's id." });

/** GET /api/users: username ascending; `q` the username or e-mail contains it, `role`, `disabled`. */
export const userListQuerySchema = listQueryFor({
  sortable: USER_SORT_FIELDS,
  sort: ['username', 'ASC'],
  filters: { q: 'text', role: 'text', disabled: 'boolean' },
});
export type UserListQuery = z.output<typeof userListQuerySchema>;

const linkToken = z
  .string({ error: AdminMessages.passwordLinkInvalid })
  .min(1, AdminMessages.passwordLinkInvalid)
  .max(200, AdminMessages.passwordLinkInvalid);

/** GET /consumers/password?token=T: the link, checked and not used. */
export const passwordLinkQuerySchema = strictFields({ token: linkToken });

/** POST /consumers/password: { token, password } sets the password of the link's user (the link then dies). */
export const setPasswordSchema = strictFields({
  token: linkToken,
  password: z
    .string({ error: AdminMessages.passwordTooShort })
    .min(PASSWORD_MIN_LENGTH, AdminMessages.passwordTooShort)
    .max(PASSWORD_MAX_LENGTH, AdminMessages.passwordTooLong),
}).meta({ examples: [{ token: 'pwl_…', password: 'a long passphrase' }] });
export type SetPasswordInput = z.output<typeof setPasswordSchema>;

/** PUT /api/organisations/{orgId}/seal: the PKCS#12 in the multipart part `file`, its password in `password`. */
export const sealImportSchema = strictFields({
  password: z.string({ error: 'password must be a string' }).max(1024).optional().default(''),
}).meta({ examples: [{ password: 'the PKCS#12 password' }] });

/** POST /api/requests/{id}/cancel: an optional reason, kept in the audit trail and told to the parties. */
export const cancelRequestSchema = strictFields({
  reason: absentable(
    z.string({ error: 'reason must be a string' }).trim().max(500, 'reason must be at most 500 characters'),
  ),
}).meta({ examples: [{ reason: 'Sent to the wrong person.' }] });
export type CancelRequestInput = z.output<typeof cancelRequestSchema>;

/** POST /api/requests/{id}/reseal, POST /api/webhooks/{id}/secret, POST /api/deliveries/{id}/redeliver: no body. */
export const noBodySchema = strictFields({}).meta({ examples: [{}] });

/** A delivery's id in a path (`/api/deliveries/{id}`): a positive whole number, else no delivery (404). */
export const deliveryIdParamSchema = z
  .string()
  .refine((id) => /^[1-9][0-9]{0,9}$/.test(id), {
    error: (issue) => AdminMessages.deliveryNotFound.replace('{id}', String(issue.input).slice(0, 64)),
    params: withCode('NOT_FOUND'),
  })
  .transform(Number)
  .meta({ description: "The delivery's id." });

/** GET /api/deliveries: newest first; `webhook_id` (a webhook's deliveries), `status`, `event`. */
export const deliveryListQuerySchema = listQueryFor({
  sortable: DELIVERY_SORT_FIELDS,
  sort: ['createdAt', 'DESC'],
  filters: { webhook_id: 'text', status: 'text', event: 'text' },
});
export type DeliveryListQuery = z.output<typeof deliveryListQuerySchema>;
