/**
 * @jest-environment ./test/support/onnx-environment.js
 */
import { randomBytes } from 'node:crypto';
import { RecipientMessages } from '@esign/contract';
import { RequestEntity } from '../../src/modules/requests/request.entity';
import { RequestLifecycle } from '../../src/modules/requests/request-lifecycle.service';
import { call, fillWith, type Route } from '../support/route-walk';
import { SIGNER_LINK_ROUTES } from '../support/routes';
import { drain, latestOtp, partyRow, sendForSigning, signAs, SIGNATURE_PNG, tokensOf } from '../support/signing';
import { createOrgWithUser, orgApiKey, startTestApp, type TestApp } from '../support/test-app';

/**
 * Every recipient call (SIGNER_LINK_ROUTES: reference, sendotp, verifyotp, signer_details, location, video status,
 * liveness, init, esignature, request status, reject, download, failed, retry, discrepancy check, dscToken) aimed at
 * one party with no token, a random token, another party's token (same request, another request, another
 * organisation) and a token replaced by resend_invite: 401 INVALID_LINK (400 where the call names nothing of the
 * party), never 2xx, never 5xx, nothing of the party in the answer, and no row changed. Then each party of a finished
 * request (completed, rejected, cancelled, expired) with its own token: every action refused (4xx), the reads carry
 * no personal data and no document, and nothing changes.
 */

const ROUTES: Route[] = SIGNER_LINK_ROUTES.map((r) => {
  const [method, path] = r.split(' ');
  return { method, path };
});
/** Calls that change something (or would): they must never answer 2xx on a dead or foreign link. */
const ACTIONS = ROUTES.filter(
  (r) =>
    r.method === 'POST' ||
    ['/v1/sendotp/:orgId/:refId/:order', '/v1/init/:orgId/:requestId', '/v1/retry/:orgId/:requestId'].includes(r.path),
);
/** Calls that name no party (only the organisation, or an OTP id): another party's own token may use them. */
const PARTYLESS = [
  '/v1/location_required/:orgId',
  '/v1/video_org_status/:orgId',
  '/v1/get_location',
  '/v1/verifyotp/:userId',
];
const TABLES = ['requests', 'parties', 'audit_events', 'otps', 'outbox_messages', 'jobs', 'esign_transactions'];

const signer = (name: string, email: string, phoneNumber: string) => ({
  name,
  email,
  phoneNumber,
  observer: false,
  signature_type: 'e-Signature',
});
const PRIYA = signer('Priya Victimson', 'priya.victim@example.in', '9811100001');
const ROHAN = signer('Rohan Othersign', 'rohan.other@example.in', '9811100002');
const png = `data:image/png;base64,${SIGNATURE_PNG.toString('base64')}`;

interface Target {
  refId: number;
  order: number;
  requestId: string;
  userId: string;
  otp: string;
  personal: string[];
}

describe('recipient calls refuse missing, wrong, foreign, replaced and finished links', () => {
  let t: TestApp;
  let key: string;
  let victim: Target;
  let other: Target;
  let tokens: Record<string, string>;

  const snapshot = async (): Promise<string> => {
    const out: Record<string, unknown[]> = {};
    for (const table of TABLES) {
      const rows = (await t.db.query(`SELECT * FROM ${table}`)) as Record<string, unknown>[];
      out[table] = rows.map((r) => JSON.stringify(r)).sort();
    }
    return JSON.stringify(out);
  };

  const bodyFor = (route: Route, target: Target): Record<string, unknown> => {
    switch (route.path) {
      case '/v1/verifyotp/:userId':
        return { otp: target.otp };
      case '/v1/signer_details/:orgId/:refId/:orderNo':
        return { status: 'signing' };
      case '/v1/get_location':
        return { latitude: 19.07, longitude: 72.87, orgId: 'acme' };
      case '/v1/liveness/:orgId/:requestId':
        return { video_file: 'data:video/webm;base64,GkXfo59ChoEBQveBAULygQRC84EIQoKEd2VibQ==' };
      case '/v1/esignature/:orgId/:requestId':
        return { file: png };
      case '/v1/esign/reject/:orgId/:refId/:orderNo':
        return { remark: 'not me' };
      case '/v1/failed/:orgId/:requestId':
        return { send_email: false, errorCode: 'X', errorMessage: 'forged failure' };
      case '/v1/dscToken/:orgId/:requestId':
        return { usb_token: '1234' };
      default:
        return {};
    }
  };

  const hit = (route: Route, target: Target, token: string | null, inQuery = false) => {
    const path = fillWith(route.path, {
      orgId: 'acme',
      refId: String(target.refId),
      order: String(target.order),
      orderNo: String(target.order),
      requestId: target.requestId,
      userId: target.userId,
    });
    const query = [
      ...(route.path.startsWith('/v1/init/') ? ['method=2'] : []),
      ...(token && inQuery ? [`token=${token}`] : []),
    ];
    let req = call(t, route, query.length ? `${path}?${query.join('&')}` : path);
    if (token && !inQuery) req = req.set('x-sign-token', token);
    return route.method === 'GET' ? req : req.send(bodyFor(route, target));
  };

  const targetOf = async (refId: number, order: number, email: string, personal: string[]): Promise<Target> => {
    const party = await partyRow(t, refId, order);
    const [otp] = (await t.db.query('SELECT id FROM otps WHERE party_id = ? ORDER BY created_at DESC', [party.id])) as {
      id: string;
    }[];
    return {
      refId,
      order,
      requestId: party.id,
      userId: otp?.id ?? 'x1',
      otp: otp ? await latestOtp(t, email) : '123456',
      personal,
    };
  };

  beforeAll(async () => {
    t = await startTestApp();
    await createOrgWithUser(t, 'acme', 'alice', 'alice-password');
    await createOrgWithUser(t, 'globex', 'gina', 'gina-password');
    key = await orgApiKey(t, 'acme');
    const globexKey = await orgApiKey(t, 'globex');

    const r1 = await sendForSigning(t, key, 'acme', { recipients: [PRIYA, ROHAN], otpRequired: true }, [
      { order: 1, pageNo: [1] },
      { order: 2, pageNo: [1] },
    ]);
    const r2 = await sendForSigning(
      t,
      key,
      'acme',
      { recipients: [signer('Anil Elsewhere', 'anil@example.in', '9811100003')], otpRequired: true },
      [{ order: 1, pageNo: [1] }],
    );
    const g = await sendForSigning(
      t,
      globexKey,
      'globex',
      { recipients: [signer('Gita Globex', 'gita@example.in', '9811100004')], otpRequired: true },
      [{ order: 1, pageNo: [1] }],
    );
    // Both parties of r1 have an OTP waiting (its code is what an attacker would most like to use).
    for (const order of [1, 2])
      await t.http.get(`/v1/sendotp/acme/${r1.refId}/${order}`).set('x-sign-token', r1.tokens[order]).expect(200);
    t.clock.advance(61);
    await t.http.get(`/v1/resend_invite/acme/${r1.refId}/2`).set('apikey', key).expect(200);
    const renewed = await tokensOf(t, key, 'acme', r1.refId);
    expect(renewed[2]).not.toBe(r1.tokens[2]);

    victim = await targetOf(r1.refId, 1, PRIYA.email, [PRIYA.name, PRIYA.email, PRIYA.phoneNumber]);
    other = await targetOf(r1.refId, 2, ROHAN.email, [ROHAN.name, ROHAN.email, ROHAN.phoneNumber]);
    tokens = {
      sameRequest: renewed[2],
      otherRequest: r2.tokens[1],
      otherOrganisation: g.tokens[1],
      replaced: r1.tokens[2],
    };
  });
  afterAll(() => t.close());

  const expectRefused = async (
    cases: Array<{ label: string; token: string | null; target: Target; routes: Route[]; inQuery?: boolean }>,
  ): Promise<number> => {
    const before = await snapshot();
    const problems: unknown[] = [];
    let n = 0;
    for (const c of cases) {
      for (const route of c.routes) {
        const res = await hit(route, c.target, c.token, c.inQuery);
        n++;
        const leaked = c.target.personal.filter((p) => res.text.includes(p));
        const invalidLink = res.status === 401 && res.body.error === 'INVALID_LINK';
        const partyless = PARTYLESS.includes(route.path) && res.status === 400;
        if (!(invalidLink || partyless) || leaked.length)
          problems.push({ case: c.label, route: `${route.method} ${route.path}`, status: res.status, body: res.body });
      }
    }
    expect(problems).toEqual([]);
    expect(await snapshot()).toEqual(before);
    return n;
  };

  it('no token and a random 43-character token: 401 INVALID_LINK on every call, nothing changed', async () => {
    const random = () => randomBytes(32).toString('base64url');
    const n = await expectRefused([
      { label: 'no token', token: null, target: victim, routes: ROUTES },
      { label: 'random token', token: random(), target: victim, routes: ROUTES },
      { label: 'random token in the query', token: random(), target: victim, routes: ROUTES, inQuery: true },
    ]);
    expect(n).toBe(ROUTES.length * 3);
  });

  it("another party's token (same request, another request, another organisation): refused on the victim's calls", async () => {
    const aimed = ROUTES.filter((r) => !PARTYLESS.includes(r.path) || r.path === '/v1/verifyotp/:userId');
    const n = await expectRefused([
      { label: 'same request', token: tokens.sameRequest, target: victim, routes: aimed },
      { label: 'another request', token: tokens.otherRequest, target: victim, routes: aimed },
      { label: 'another organisation', token: tokens.otherOrganisation, target: victim, routes: ROUTES },
    ]);
    expect(n).toBe(aimed.length * 2 + ROUTES.length);
    // The victim's OTP is still unverified and its own token still works.
    expect((await partyRow(t, victim.refId, 1)).otpVerifiedAt).toBeNull();
  });

  it('the token replaced by resend_invite: 401 INVALID_LINK on every call of its own party', async () => {
    await expectRefused([{ label: 'replaced', token: tokens.replaced, target: other, routes: ROUTES }]);
  });

  describe('the links of finished requests', () => {
    const finished: Array<{ label: string; token: string; target: Target }> = [];

    beforeAll(async () => {
      const one = async (label: string, name: string, email: string, phone: string) => {
        const sent = await sendForSigning(
          t,
          key,
          'acme',
          { recipients: [signer(name, email, phone)], otpRequired: false },
          [{ order: 1, pageNo: [1] }],
        );
        finished.push({
          label,
          token: sent.tokens[1],
          target: await targetOf(sent.refId, 1, email, [name, email, phone]),
        });
        return sent;
      };
      const done = await one('completed', 'Chitra Completed', 'chitra@example.in', '9811100011');
      await signAs(t, {
        orgId: 'acme',
        refId: done.refId,
        order: 1,
        token: done.tokens[1],
        email: 'chitra@example.in',
      });
      await drain(t);
      const rejected = await one('rejected', 'Raj Rejected', 'raj@example.in', '9811100012');
      await t.http
        .post(`/v1/esign/reject/acme/${rejected.refId}/1`)
        .set('x-sign-token', rejected.tokens[1])
        .send({ remark: 'No' })
        .expect(200);
      const cancelled = await one('cancelled', 'Kiran Cancelled', 'kiran@example.in', '9811100013');
      await t.http.get(`/v1/deleteRef/acme/${cancelled.refId}`).set('apikey', key).expect(200);
      const expired = await one('expired', 'Esha Expired', 'esha@example.in', '9811100014');
      await t.db
        .getRepository(RequestEntity)
        .update({ refId: expired.refId }, { expiresAt: new Date(t.clock.now().getTime() - 1000) });
      expect(await t.app.get(RequestLifecycle).expire('acme', expired.refId)).toBe(true);
      await drain(t);
      const statuses = await Promise.all(
        finished.map(
          async (f) => (await t.db.getRepository(RequestEntity).findOneByOrFail({ refId: f.target.refId })).status,
        ),
      );
      expect(statuses).toEqual(['completed', 'rejected', 'cancelled', 'expired']);
    });

    it('refuses every action (4xx), answers reads without personal data or document, and changes nothing', async () => {
      const before = await snapshot();
      const problems: unknown[] = [];
      for (const f of finished) {
        for (const route of ROUTES) {
          const res = await hit(route, f.target, f.token);
          const action = ACTIONS.includes(route);
          const leaked = f.target.personal.filter((p) => res.text.includes(p));
          const document =
            /\/docs\/files\/[^"]*\/(original|current)\.pdf/.test(res.text) || res.body?.request?.uploadUrl;
          if (res.status >= 500 || (action && res.status < 300) || leaked.length || document)
            problems.push({
              case: f.label,
              route: `${route.method} ${route.path}`,
              status: res.status,
              body: res.body,
            });
        }
        const ref = await hit(
          ROUTES.find((r) => r.path.startsWith('/v1/reference/'))!,
          f.target,
          f.token,
        ).expect(200);
        expect(ref.body.request.esignStatus).toBe(f.label);
      }
      expect(problems).toEqual([]);
      expect(await snapshot()).toEqual(before);
    });

    it('says why, with the reason of each finished state', async () => {
      const reasons: Record<string, string> = {
        completed: RecipientMessages.requestCompleted,
        rejected: RecipientMessages.requestRejected,
        cancelled: RecipientMessages.requestCancelled,
        expired: RecipientMessages.requestExpired,
      };
      for (const f of finished.filter((x) => x.label !== 'completed')) {
        const res = await hit(
          ROUTES.find((r) => r.path.startsWith('/v1/signer_details/'))!,
          f.target,
          f.token,
        ).expect(400);
        expect(res.body).toMatchObject({ error: 'SIGNING_REFUSED', message: reasons[f.label] });
      }
    });
  });
});
