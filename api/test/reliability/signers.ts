import request from 'supertest';
import { SIGNATURE_PNG } from '../support/signing';
import { ORG } from './requests';

/** One e-Signature signer's path through the API (no OTP), every step answered 200, else it throws. */
export async function signParty(url: string, p: { refId: number; order: number; token: string }): Promise<void> {
  const http = request(url);
  const h = { 'x-sign-token': p.token };
  const base = `${ORG}/${p.refId}/${p.order}`;
  const ok = (what: string, res: request.Response) => {
    if (res.status !== 200) throw new Error(`${what} answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res;
  };
  const ref = ok('reference', await http.get(`/v1/reference/${base}`).set(h));
  const requestId = ref.body.request.requestId as string;
  ok(
    'opened',
    await http
      .post(`/v1/signer_details/${base}`)
      .set(h)
      .send({ status: 'opened', userAgent: { OS: 'Linux', Browser: 'Test' } }),
  );
  ok('signing', await http.post(`/v1/signer_details/${base}`).set(h).send({ status: 'signing' }));
  ok('init', await http.get(`/v1/init/${ORG}/${requestId}?method=2`).set(h));
  ok(
    'esignature',
    await http
      .post(`/v1/esignature/${ORG}/${requestId}`)
      .set(h)
      .send({ file: `data:image/png;base64,${SIGNATURE_PNG.toString('base64')}` }),
  );
}
