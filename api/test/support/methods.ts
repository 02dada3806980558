import { verhoeffCheckDigit } from '../../src/modules/aadhaar/protocol';
import { OutboxMessageEntity } from '../../src/modules/notifications/outbox-message.entity';
import type { TestApp } from './test-app';

/** Waits until `check` holds (polling every 50 ms), or fails after `ms`. */
export async function until(check: () => boolean | Promise<boolean>, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The latest message sent to `to` (the dev outbox), e.g. an OTP. */
export const latestOtpTo = async (t: TestApp, to: string): Promise<string> => {
  const msg = await t.db.getRepository(OutboxMessageEntity).findOne({ where: { to }, order: { id: 'DESC' } });
  return /\b(\d{6})\b/.exec(msg?.text ?? '')![1];
};

/**
 * An Aadhaar signer through the sandbox ESP's pages (as aadhaar.test.ts drives them): accept, init with method 0, the
 * consent, an Aadhaar number, the name as on Aadhaar, the OTP sent to the phone, and the ESP's answer posted back.
 * The signature is then waiting for the seal job (drain) to be finished and applied.
 */
export async function signAadhaar(
  t: TestApp,
  s: { orgId: string; refId: number; order: number; token: string; name: string },
): Promise<void> {
  const h = { 'x-sign-token': s.token };
  const base = `${s.orgId}/${s.refId}/${s.order}`;
  const ref = await t.http.get(`/v1/reference/${base}`).set(h).expect(200);
  const requestId = ref.body.request.requestId as string;
  await t.http.post(`/v1/signer_details/${base}`).set(h).send({ status: 'signing' }).expect(200);
  const init = await t.http.get(`/v1/init/${s.orgId}/${requestId}?method=0`).set(h).expect(200);
  const page = await t.http.post('/esp-sandbox/esign').type('form').send({ msg: init.body.fields.msg }).expect(200);
  const action = new URL(/action="([^"]+)\/aadhaar"/.exec(page.text)![1]).pathname;
  const aadhaar = '23456789012' + verhoeffCheckDigit('23456789012');
  await t.http.post(`${action}/aadhaar`).type('form').send({ consent: 'yes', aadhaar, name: s.name }).expect(200);
  const sms = await t.db
    .getRepository(OutboxMessageEntity)
    .findOne({ where: { kind: 'esp-otp' }, order: { id: 'DESC' } });
  const answer = await t.http
    .post(`${action}/otp`)
    .type('form')
    .send({ otp: /\b(\d{6})\b/.exec(sms!.text)![1] })
    .expect(200);
  const msg = /name="msg" value="([^"]*)"/
    .exec(answer.text)![1]
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
  await t.http.post(`/v1/aadhaar/response/${s.orgId}/${requestId}`).type('form').send({ msg }).expect(303);
}

/**
 * A DSC signer whose desktop agent is connected: accept, then the token password; the signature is then waiting for
 * the seal job (drain).
 */
export async function signDsc(
  t: TestApp,
  s: { orgId: string; refId: number; order: number; token: string; pin: string },
): Promise<void> {
  const h = { 'x-sign-token': s.token };
  const base = `${s.orgId}/${s.refId}/${s.order}`;
  const ref = await t.http.get(`/v1/reference/${base}`).set(h).expect(200);
  const requestId = ref.body.request.requestId as string;
  await t.http.post(`/v1/signer_details/${base}`).set(h).send({ status: 'signing' }).expect(200);
  await t.http.post(`/v1/dscToken/${s.orgId}/${requestId}`).set(h).send({ usb_token: s.pin }).expect(200);
}
