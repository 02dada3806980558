import { SigningMethod } from '@esign/contract';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { DscAgents } from '../src/modules/dsc/dsc-agents';
import { EspKeys } from '../src/modules/aadhaar/esp-keys.service';
import { AuditEventEntity } from '../src/modules/audit/audit-event.entity';
import { DscAgentSessionEntity } from '../src/modules/dsc/dsc-agent-session.entity';
import { OrganisationEntity } from '../src/modules/organisations/organisation.entity';
import { OutboxMessageEntity } from '../src/modules/notifications/outbox-message.entity';
import { SealPkiService } from '../src/modules/signing/pki/seal-pki.service';
import { latestOtpTo, signAadhaar, until } from './support/methods';
import { runPdfVerifyAsync } from './support/pdf-verify';
import { createTestToken, spawnDscAgent, type RunningAgent, type TestToken } from './support/softhsm';
import { drain, partyRow, requestRow, sendForSigning, signAs, signedPdf } from './support/signing';
import { createOrgWithUser, orgApiKey, startTestApp, type TestApp } from './support/test-app';

const PIN = '4719-3385';
const ASHA = { name: 'Asha Rao', email: 'asha@example.in', phoneNumber: '+91 98765 43210' };
const VIKRAM = { name: 'Vikram Shah', email: 'vikram@example.in', phoneNumber: '9123456789' };
const PRIYA = { name: 'Priya Menon', email: 'priya@example.in', phoneNumber: '9988776655' };

describe('DSC through the desktop signer agent (a SoftHSMv2 token), in a request with Aadhaar and e-Signature', () => {
  let t: TestApp;
  let key: string;
  let server: string;
  let token: TestToken;
  let agent: RunningAgent | null = null;
  const logLines: string[] = [];

  beforeAll(async () => {
    // Every API log line (debug and up) is kept, to prove the password is in none of them.
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        logLines.push(chunk.toString('utf8'));
        done();
      },
    });
    t = await startTestApp({ LOG_LEVEL: 'debug' }, { logDestination: sink });
    server = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    await createOrgWithUser(t, 'acme', 'alice', 'alice-password');
    key = await orgApiKey(t, 'acme');
    // DSC is offered only when the organisation links its signer app.
    await t.db
      .getRepository(OrganisationEntity)
      .update({ id: 'acme' }, { dscDownloadUrl: 'https://example.in/signer' });
    // The ESP's 30-minute certificate is checked by pdfsig at the real time: the test clock is brought to now.
    t.clock.advance(Math.max(0, (Date.now() - t.clock.now().getTime()) / 1000));
    token = createTestToken(VIKRAM.name, 'VIKRAM', PIN);
  });

  afterAll(async () => {
    agent?.child.kill('SIGINT');
    token?.cleanup();
    await t.close();
  });

  it("the agent logs in with the request's e-mail and an OTP, then signs; a wrong password is the hold-on message", async () => {
    const { refId, tokens } = await sendForSigning(
      t,
      key,
      'acme',
      {
        fixture: 'us_constitution.pdf',
        otpRequired: false,
        recipients: [
          { ...ASHA, observer: false, signature_type: 'Aadhaar' },
          { ...VIKRAM, observer: false, signature_type: 'DSC' },
          { ...PRIYA, observer: false, signature_type: 'e-Signature' },
        ],
      },
      [1, 2, 3].map((order) => ({ order, pageNo: [order] })),
    );

    // Before the agent is there: the hold-on message says what to do.
    const vikram = { 'x-sign-token': tokens[2] };
    const ref = await t.http.get(`/v1/reference/acme/${refId}/2`).set(vikram).expect(200);
    const requestId = ref.body.request.requestId as string;
    expect(ref.body.request.signing_methods ?? [SigningMethod.DSC]).toContain(SigningMethod.DSC);
    await t.http.post(`/v1/signer_details/acme/${refId}/2`).set(vikram).send({ status: 'signing' }).expect(200);
    const early = await t.http.post(`/v1/dscToken/acme/${requestId}`).set(vikram).send({ usb_token: PIN }).expect(400);
    expect(early.body.message).toBe(
      'The signer app is not connected. Open it, log in with vikram@example.in and keep it open, then try again.',
    );

    // The agent, as the signer runs it on their computer: `esign-cli dsc-agent`, logging in with the e-mail of the
    // request and the OTP sent there (typed at its prompt), then keeping its WebSocket open.
    agent = spawnDscAgent(server, VIKRAM.email, token);
    await until(() => agent!.output().includes('One-time code sent to'));
    agent.child.stdin.write(`${await latestOtpTo(t, VIKRAM.email)}\n`);
    await until(async () => (await t.app.get(DscAgents).find([VIKRAM.email])) !== null);

    const wrong = await t.http
      .post(`/v1/dscToken/acme/${requestId}`)
      .set(vikram)
      .send({ usb_token: '0000-0000' })
      .expect(400);
    expect(wrong.body.message).toBe('The USB token password is wrong.');
    expect((await partyRow(t, refId, 2)).status).toBe('signing');
    await t.http.post(`/v1/dscToken/acme/${requestId}`).set(vikram).send({ usb_token: PIN }).expect(200);
    // The token's signature waits for the seal job, which timestamps and embeds it (the page polls meanwhile).
    expect((await t.http.get(`/v1/request/acme/${requestId}`).set(vikram).expect(200)).body.status).toBe('signing');
    await drain(t);
    const status = await t.http.get(`/v1/request/acme/${requestId}`).set(vikram).expect(200);
    expect(status.body).toMatchObject({ status: 'completed', signature_type: SigningMethod.DSC });

    // Asha through the sandbox ESP, Priya electronically; the seal completes it.
    await signAadhaar(t, { orgId: 'acme', refId, order: 1, token: tokens[1], name: 'Asha Rao' });
    await signAs(t, { orgId: 'acme', refId, order: 3, token: tokens[3], email: PRIYA.email });
    await drain(t);
    expect((await requestRow(t, refId)).status).toBe('completed');

    const sandbox = await t.app.get(EspKeys).sandbox();
    const root = await t.app.get(SealPkiService).rootCertificatePem();
    // The development root first: pdf-verify checks the archive timestamp (by the built-in TSA) against it.
    const verified = await runPdfVerifyAsync(await signedPdf(t, refId), [root, sandbox.ca.certPem, token.caPem]);
    expect(verified.signatures.map((s) => [s.signer, s.valid, s.trusted]).sort()).toEqual(
      [
        ['Asha Rao', true, true],
        ['Vikram Shah', true, true],
        ['Priya Menon', true, true],
        ['Org acme Document Seal', true, true],
      ].sort(),
    );
    expect(verified.archives.map((s) => s.signer)).toEqual(['e-Sign Development Timestamp Authority']);
    expect(verified.problems).toEqual([]);
    expect(verified.ok).toBe(true);

    // The password is in no stored row and in nothing the agent printed.
    const rows = [
      ...(await t.db.getRepository(AuditEventEntity).find()),
      ...(await t.db.getRepository(OutboxMessageEntity).find()),
      ...(await t.db.getRepository(DscAgentSessionEntity).find()),
    ];
    expect(JSON.stringify(rows)).not.toContain(PIN);
    expect(agent.output()).not.toContain(PIN);
    expect(logLines.length).toBeGreaterThan(20);
    expect(logLines.join('')).not.toContain(PIN);
    expect(logLines.join('')).toContain('/v1/dscToken/acme/');
  });
});
