import type { UserRole } from '@esign/contract';
import { OutboxMessageEntity } from '../../src/modules/notifications/outbox-message.entity';
import { signIn, type TestApp } from './test-app';

/** The set-password link's token in the latest invitation or reset e-mail to `to` (the dev outbox keeps them). */
export async function latestPasswordToken(
  t: TestApp,
  to: string,
  kind: 'user-invitation' | 'password-reset' = 'user-invitation',
): Promise<string> {
  const msg = await t.db.getRepository(OutboxMessageEntity).findOne({ where: { to, kind }, order: { id: 'DESC' } });
  const url = /(https?:\/\/\S+\/set-password\?token=[^\s"<]+)/.exec(msg?.text ?? '')?.[1];
  if (!url) throw new Error(`no ${kind} e-mail with a set-password link was sent to ${to}`);
  return new URL(url).searchParams.get('token')!;
}

/**
 * An administrator invites a user (POST /api/users), who sets a password with the e-mailed link and signs in: answers
 * the user's id and session key.
 */
export async function inviteAndSignIn(
  t: TestApp,
  adminKey: string,
  user: { username: string; email: string; role?: UserRole; password?: string },
): Promise<{ id: string; key: string; password: string }> {
  const password = user.password ?? `${user.username}-passphrase`;
  const invited = await t.http
    .post('/api/users')
    .set('apikey', adminKey)
    .send({ username: user.username, email: user.email, role: user.role ?? 'staff' })
    .expect(201);
  const token = await latestPasswordToken(t, user.email);
  await t.http.post('/consumers/password').send({ token, password }).expect(200);
  return { id: invited.body.id as string, key: await signIn(t, user.username, password), password };
}
