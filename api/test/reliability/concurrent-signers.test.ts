import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { runPdfVerify } from '../support/pdf-verify';
import { SIGNATURE_PNG } from '../support/signing';
import { startApiNode, stopAll } from '../scale-out/cluster';
import { demoKey, ORG, sendRequests } from './requests';

const REQUESTS = 40;
const SIGNERS = 5;

/**
 * 200 signers at once across 40 requests against one built server on SQLite (the embedded default): every one
 * completes, and no 'database is locked' reaches a signer or the log.
 */
describe('reliability: 200 concurrent signers on SQLite', () => {
  afterAll(() => stopAll());

  it('signs 200 parties of 40 requests at once, all complete, no database-locked error', async () => {
    const node = await startApiNode('concurrent', { JOBS_POLL_MS: '200' });
    const http = request(node.url);
    const key = await demoKey(http);
    const parties = await sendRequests(node.url, key, REQUESTS, SIGNERS);
    expect(parties).toHaveLength(REQUESTS * SIGNERS);

    // Every signer's whole path at the same time; every answer is kept.
    const answers: { step: string; status: number; body: string }[] = [];
    const call = async (step: string, req: request.Test) => {
      const res = await req;
      answers.push({ step, status: res.status, body: JSON.stringify(res.body ?? res.text) });
      return res;
    };
    const started = Date.now();
    await Promise.all(
      parties.map(async (p) => {
        const h = { 'x-sign-token': p.token };
        const base = `${ORG}/${p.refId}/${p.order}`;
        const ref = await call('reference', http.get(`/v1/reference/${base}`).set(h));
        const requestId = ref.body.request.requestId as string;
        await call(
          'opened',
          http
            .post(`/v1/signer_details/${base}`)
            .set(h)
            .send({ status: 'opened', userAgent: { OS: 'Linux', Browser: 'Test' } }),
        );
        await call('signing', http.post(`/v1/signer_details/${base}`).set(h).send({ status: 'signing' }));
        await call('init', http.get(`/v1/init/${ORG}/${requestId}?method=2`).set(h));
        await call(
          'esignature',
          http
            .post(`/v1/esignature/${ORG}/${requestId}`)
            .set(h)
            .send({ file: `data:image/png;base64,${SIGNATURE_PNG.toString('base64')}` }),
        );
      }),
    );
    const accepted = Date.now() - started;
    const failures = answers.filter((a) => a.status !== 200);
    expect(failures).toEqual([]);
    expect(answers.filter((a) => /locked|SQLITE_BUSY/i.test(a.body))).toEqual([]);

    // The seals: every request completed.
    const deadline = Date.now() + 300_000;
    let completed = 0;
    while (completed < REQUESTS) {
      const list = await http.get(`/v1/request_all/${ORG}`).set('apikey', key).query({ limit: 100 }).expect(200);
      completed = (list.body.data as { request_status: string }[]).filter(
        (r) => r.request_status === 'completed',
      ).length;
      if (Date.now() > deadline) throw new Error(`${completed} of ${REQUESTS} completed\n${node.logTail(40)}`);
      if (completed < REQUESTS) await new Promise((r) => setTimeout(r, 1000));
    }
    const log = readFileSync(node.logPath, 'utf8');
    expect(log).not.toMatch(/database is locked|SQLITE_BUSY/i);
    const root = readFileSync(join(node.env.DATA_DIR, 'pki', 'dev-root-ca.pem'), 'utf8');
    const list = await http.get(`/v1/request_all/${ORG}`).set('apikey', key).expect(200);
    const first = (list.body.data as { data: { downloadUrl?: string }[] }[])[0];
    const link = new URL(first.data.find((p) => p.downloadUrl)!.downloadUrl!);
    const pdf = (await fetch(`${node.url}${link.pathname}${link.search}`).then((r) => r.arrayBuffer())) as ArrayBuffer;
    const verified = runPdfVerify(new Uint8Array(pdf), [root]);
    expect(verified.ok).toBe(true);
    // The signers' signatures and the seal, then the archive timestamp (B-LTA, the default).
    expect(verified.signatures).toHaveLength(SIGNERS + 1);
    expect(verified.archives).toHaveLength(1);
    console.log(
      `200 signers: every call answered 200 in ${(accepted / 1000).toFixed(1)} s; all ${REQUESTS} requests sealed in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
  }, 600_000);
});
