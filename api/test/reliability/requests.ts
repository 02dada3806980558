import request from 'supertest';
import { uploadOk } from '../support/requests';
import { tokensOf } from '../support/signing';
import type { TestApp } from '../support/test-app';

export const ORG = 'demo';

/** Signs in as the seeded demo user of a built server and answers its session key. */
export async function demoKey(http: request.Agent | ReturnType<typeof request>): Promise<string> {
  return (await http.get('/consumers/demo/key-auth').auth('demo', 'demo1234').expect(200)).body.data[0].key as string;
}

/**
 * `requests` requests on normal.pdf, each sent to `signers` e-Signature signers without OTP ('Signer r-i', box on page
 * 1), and every party's link token, in order.
 */
export async function sendRequests(
  url: string,
  key: string,
  requests: number,
  signers: number,
): Promise<{ refId: number; order: number; token: string }[]> {
  const http = request(url);
  const t = { http } as unknown as TestApp; // the support helpers use only `http`
  const parties: { refId: number; order: number; token: string }[] = [];
  for (let r = 0; r < requests; r++) {
    const up = await uploadOk(t, key, ORG, {
      fixture: 'normal.pdf',
      otpRequired: false,
      recipients: Array.from({ length: signers }, (_, i) => ({
        name: `Signer ${r}-${i}`,
        email: `s${r}-${i}@example.in`,
        phoneNumber: `97${String(r * 10 + i).padStart(8, '0')}`,
        observer: false,
        signature_type: 'e-Signature',
      })),
    });
    const data = Array.from({ length: signers }, (_, i) => ({ refId: up.refId, order: i + 1, pageNo: [1] }));
    await http.post('/v1/process').set('apikey', key).send({ orgId: ORG, data }).expect(200);
    const tokens = await tokensOf(t, key, ORG, up.refId);
    for (let i = 1; i <= signers; i++) parties.push({ refId: up.refId, order: i, token: tokens[i] });
  }
  return parties;
}
