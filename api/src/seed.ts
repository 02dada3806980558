import type { INestApplicationContext } from '@nestjs/common';
import { UsersService } from './modules/auth/users.service';
import { OrganisationsService } from './modules/organisations/organisations.service';

export const DEMO = {
  orgId: 'demo',
  orgName: 'Demo Organisation',
  username: 'demo',
  password: 'demo1234',
  email: 'demo@example.in',
} as const;

/**
 * On an empty database (and never in production) creates organisation `demo` with its administrator demo / demo1234, whose
 * e-mail (demo@example.in, the dev outbox's) receives the rejections of the requests it sends.
 */
export async function seedDemo(app: INestApplicationContext): Promise<boolean> {
  const organisations = app.get(OrganisationsService);
  if ((await organisations.count()) > 0) return false;
  await organisations.create({ id: DEMO.orgId, name: DEMO.orgName, mode: 'test', tag: DEMO.orgId });
  // The demo user administers its organisation (issue 22): users, API keys, webhooks, settings, the seal.
  await app.get(UsersService).create(DEMO.orgId, DEMO.username, DEMO.password, DEMO.email, 'admin');
  return true;
}
