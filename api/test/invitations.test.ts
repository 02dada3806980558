import { createHash } from 'node:crypto';
import { JobsRunner } from '../src/modules/jobs/jobs.runner';
import { PartyEntity } from '../src/modules/requests/party.entity';
import { parseMime } from './support/mime';
import { startSmtpServer, type ReceivedMail } from './support/smtp';
import { SIGNERS, uploadOk } from './support/requests';
import { createOrgWithUser, orgApiKey, startTestApp, type TestApp } from './support/test-app';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** The whole path of an invitation: process → job → nodemailer → a real SMTP server → a link that works. */
describe('invitations by real SMTP', () => {
  let t: TestApp;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let key: string;
  let mails: ReceivedMail[] = [];

  beforeAll(async () => {
    smtp = await startSmtpServer();
    mails = smtp.mails;
    t = await startTestApp({ SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, PUBLIC_URL: 'http://sign.acme.test' });
    await createOrgWithUser(t, 'acme', 'alice', 'alice-password');
    key = await orgApiKey(t, 'acme');
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  const linkIn = (raw: string): string => {
    const { parts } = parseMime(raw);
    const text = parts.find((p) => (p.headers.get('content-type') ?? '').startsWith('text/plain'))?.body ?? '';
    const html = parts.find((p) => (p.headers.get('content-type') ?? '').startsWith('text/html'))?.body ?? '';
    const link = /http:\/\/sign\.acme\.test\/esign\/\S+?token=[A-Za-z0-9_-]+/.exec(text)?.[0];
    expect(link).toBeDefined();
    expect(html).toContain(link!.replace(/&/g, '&amp;'));
    return link!;
  };

  it('delivers the invitation with a working, personal sign link; a resend kills the old link', async () => {
    const up = await uploadOk(t, key, 'acme', { recipients: [SIGNERS[0], SIGNERS[1]] });
    await t.http
      .post('/v1/process')
      .set('apikey', key)
      .send({ orgId: 'acme', data: [{ refId: up.refId, order: 1 }] })
      .expect(200);
    await t.app.get(JobsRunner).drain();

    const toAsha = mails.filter((m) => m.to.includes('asha@example.in'));
    expect(toAsha).toHaveLength(1);
    const link = linkIn(toAsha[0].raw);
    const url = new URL(link);
    expect(url.pathname).toBe(`/esign/acme/${up.refId}/1`);
    const token = url.searchParams.get('token') as string;
    expect(token.length).toBeGreaterThanOrEqual(43);
    // The link opens the signer app, and its token is the one stored (hashed) for that party only.
    const page = await t.http.get(url.pathname + url.search).expect(200);
    expect(page.text).toContain('signer-app');
    const parties = await t.db.getRepository(PartyEntity).find({ where: { refId: up.refId }, order: { order: 'ASC' } });
    expect(parties[0].tokenHash).toBe(sha256(token));
    expect(parties[1].tokenHash).not.toBe(sha256(token));
    const toVikram = mails.filter((m) => m.to.includes('vikram@example.in'));
    expect(toVikram).toHaveLength(1);
    expect(linkIn(toVikram[0].raw)).not.toBe(link);

    t.clock.advance(120);
    await t.http.get(`/v1/resend_invite/acme/${up.refId}/1`).set('apikey', key).expect(200);
    await t.app.get(JobsRunner).drain();
    const again = mails.filter((m) => m.to.includes('asha@example.in'));
    expect(again).toHaveLength(2);
    const fresh = new URL(linkIn(again[1].raw)).searchParams.get('token') as string;
    expect(fresh).not.toBe(token);
    const party = await t.db.getRepository(PartyEntity).findOneByOrFail({ refId: up.refId, order: 1 });
    expect(party.tokenHash).toBe(sha256(fresh));
  });
});
