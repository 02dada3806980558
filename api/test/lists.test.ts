import type { ApiKeySummary, TemplateView } from '@esign/contract';
import { readFixture } from './support/fixtures';
import { createOrgWithUser, engine, signIn, startTestApp, type TestApp } from './support/test-app';

/**
 * The /api lists' one convention (ARCHITECTURE.md, Lists) for templates and API keys: range, sort and filter read on
 * the server, the page's place and total in Content-Range and X-Total-Count, a clear 400 for anything malformed, and
 * only the caller's organisation.
 */
describe('GET /api/templates and /api/api-keys: range, sort and filter on the server', () => {
  let t: TestApp;
  let key: string;
  let otherKey: string;
  /** acme's templates, oldest first. */
  const templates: TemplateView[] = [];
  /** acme's organisation keys, oldest first. */
  const keys: ApiKeySummary[] = [];
  let othersTemplate: TemplateView;
  let othersKey: ApiKeySummary;

  const get = (path: string, query: Record<string, unknown> = {}, apikey = key) =>
    t.http
      .get(path)
      .set('apikey', apikey)
      .query(Object.fromEntries(Object.entries(query).map(([k, v]) => [k, JSON.stringify(v)])));

  /** A template of `sample_form.pdf` (1 page) or `doc_2_3_pages.pdf` with `fields` signature fields on page 1. */
  const createTemplate = async (apikey: string, name: string, fields: number, pdf = 'sample_form.pdf') => {
    const annotation = {
      annotations: Array.from({ length: fields }, (_, i) => ({
        formFieldName: `Signature ${i + 1}`,
        bbox: [50, 50 + i * 40, 120, 30],
        pageIndex: 0,
        customData: { type: 'signature-field' },
      })),
      formFieldValues: {},
    };
    const res = await t.http
      .post('/api/templates')
      .set('apikey', apikey)
      .field('template_name', name)
      .field('template_annotation', JSON.stringify(annotation))
      .attach('file', readFixture('pdfs', pdf), { filename: pdf, contentType: 'application/pdf' })
      .expect(201);
    return res.body as TemplateView;
  };

  const createKey = async (apikey: string, name: string) =>
    (await t.http.post('/api/api-keys').set('apikey', apikey).send({ name }).expect(201)).body as ApiKeySummary;

  beforeAll(async () => {
    t = await startTestApp({ JOBS_RUNNER: 'off' });
    await createOrgWithUser(t, 'acme', 'alice', 'alice-password');
    await createOrgWithUser(t, 'globex', 'gina', 'gina-password');
    key = await signIn(t, 'alice', 'alice-password');
    otherKey = await signIn(t, 'gina', 'gina-password');
    const made: [string, number, string?][] = [
      ['Gamma lease', 3],
      ['alpha NDA', 1, 'doc_2_3_pages.pdf'],
      ['Delta offer', 0],
      ['beta invoice', 3, 'doc_2_3_pages.pdf'],
      ['Epsilon 100% form', 2],
      ['zeta_consent', 1],
    ];
    for (const [name, fields, pdf] of made) {
      t.clock.advance(60);
      templates.push(await createTemplate(key, name, fields, pdf));
    }
    othersTemplate = await createTemplate(otherKey, 'Gamma lease of globex', 2);

    for (const name of ['nightly bulk', 'CI runner', 'alpha deploy', 'zeta_sync']) {
      t.clock.advance(60);
      keys.push(await createKey(key, name));
      // Each sign-in adds a session key to the same table: the list shows organisation keys only.
      await signIn(t, 'alice', 'alice-password');
    }
    othersKey = await createKey(otherKey, 'globex nightly bulk');
  });
  afterAll(() => t.close());

  const ids = (rows: { id: string }[]) => rows.map((row) => row.id);
  const newestFirst = () => ids([...templates].reverse());
  const byName = (a: string, b: string) => a.localeCompare(b, 'en', { sensitivity: 'base' });
  /** The order the API promises: by `value`, ties by id, both in `order`. */
  const ordered = <T extends { id: string }>(rows: T[], value: (row: T) => string | number, order: 'ASC' | 'DESC') =>
    ids(
      [...rows].sort((a, b) => {
        const [x, y] = [value(a), value(b)];
        const compared =
          typeof x === 'number' && typeof y === 'number'
            ? x - y
            : typeof x === 'string' && typeof y === 'string' && x.toLowerCase() !== y.toLowerCase()
              ? byName(x, y)
              : 0;
        const tie = compared || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
        return order === 'ASC' ? tie : -tie;
      }),
    );

  describe('templates', () => {
    it('pages newest first, with Content-Range and X-Total-Count, by default ten rows', async () => {
      const all = await get('/api/templates').expect(200);
      expect(all.headers['content-range']).toBe('templates 0-5/6');
      expect(all.headers['x-total-count']).toBe('6');
      expect(all.headers['access-control-expose-headers']).toBe('Content-Range, X-Total-Count');
      expect(ids(all.body)).toEqual(newestFirst());
      expect(all.body[0]).toMatchObject({
        template_id: templates[5].id,
        template_name: 'zeta_consent',
        field_count: 1,
        total_pages: 1,
        timestamp: templates[5].timestamp,
        updated_at: templates[5].timestamp,
      });

      const page = await get('/api/templates', { range: [2, 3] }).expect(200);
      expect(page.headers['content-range']).toBe('templates 2-3/6');
      expect(page.headers['x-total-count']).toBe('6');
      expect(ids(page.body)).toEqual(newestFirst().slice(2, 4));
      const last = await get('/api/templates', { range: [4, 8] }).expect(200);
      expect(last.headers['content-range']).toBe('templates 4-5/6');
      expect(ids(last.body)).toEqual(newestFirst().slice(4));
    });

    it('sorts by name (case aside), id, pages, fields, created and updated time, both ways', async () => {
      for (const order of ['ASC', 'DESC'] as const) {
        const names = await get('/api/templates', { sort: ['template_name', order] }).expect(200);
        expect(ids(names.body)).toEqual(ordered(templates, (x) => x.template_name, order));
        const expectedNames = [...templates.map((x) => x.template_name)].sort(byName);
        expect(names.body.map((x: TemplateView) => x.template_name)).toEqual(
          order === 'ASC' ? expectedNames : expectedNames.reverse(),
        );
        for (const field of ['id', 'template_id'] as const) {
          const res = await get('/api/templates', { sort: [field, order] }).expect(200);
          expect(ids(res.body)).toEqual(ordered(templates, () => 0, order));
        }
        const pages = await get('/api/templates', { sort: ['total_pages', order] }).expect(200);
        expect(ids(pages.body)).toEqual(ordered(templates, (x) => x.total_pages, order));
        const fields = await get('/api/templates', { sort: ['field_count', order] }).expect(200);
        expect(ids(fields.body)).toEqual(ordered(templates, (x) => x.field_count, order));
        const created = await get('/api/templates', { sort: ['timestamp', order] }).expect(200);
        expect(ids(created.body)).toEqual(order === 'ASC' ? ids(templates) : newestFirst());
      }
      // The two-page fixtures really are longer: the page sort is not the creation order by chance.
      expect(new Set(templates.map((x) => x.total_pages)).size).toBeGreaterThan(1);

      // A paged sort: the second page continues the first.
      const second = await get('/api/templates', { sort: ['template_name', 'ASC'], range: [3, 5] }).expect(200);
      expect(ids(second.body)).toEqual(ordered(templates, (x) => x.template_name, 'ASC').slice(3));

      // Renamed later: first by update time, still where it was by creation time.
      t.clock.advance(60);
      await t.http.put(`/api/templates/${templates[1].id}`).set('apikey', key).send({ name: 'alpha NDA' }).expect(200);
      const updated = await get('/api/templates', { sort: ['updated_at', 'DESC'], range: [0, 0] }).expect(200);
      expect(ids(updated.body)).toEqual([templates[1].id]);
      expect(updated.body[0].updated_at > updated.body[0].timestamp).toBe(true);
      const created = await get('/api/templates', { sort: ['timestamp', 'DESC'], range: [0, 0] }).expect(200);
      expect(ids(created.body)).toEqual([templates[5].id]);
    });

    it('filters by name (q: contains, case aside, % and _ literal) and creation time', async () => {
      const lease = await get('/api/templates', { filter: { q: 'LEASE' } }).expect(200);
      expect(ids(lease.body)).toEqual([templates[0].id]);
      expect(lease.headers['content-range']).toBe('templates 0-0/1');
      expect(lease.headers['x-total-count']).toBe('1');
      const withA = await get('/api/templates', { filter: { q: 'a' }, sort: ['template_name', 'ASC'] }).expect(200);
      expect(withA.body.map((x: TemplateView) => x.template_name)).toEqual([
        'alpha NDA',
        'beta invoice',
        'Delta offer',
        'Gamma lease',
        'zeta_consent',
      ]);
      const percent = await get('/api/templates', { filter: { q: '100%' } }).expect(200);
      expect(ids(percent.body)).toEqual([templates[4].id]);
      const underscore = await get('/api/templates', { filter: { q: '_' } }).expect(200);
      expect(ids(underscore.body)).toEqual([templates[5].id]);
      const blank = await get('/api/templates', { filter: { q: '  ' } }).expect(200);
      expect(blank.headers['x-total-count']).toBe('6');
      const none = await get('/api/templates', { filter: { q: 'zzz' } }).expect(200);
      expect(none.body).toEqual([]);
      expect(none.headers['content-range']).toBe('templates 0-0/0');
      expect(none.headers['x-total-count']).toBe('0');

      const from = templates[2].timestamp;
      const to = templates[4].timestamp;
      const between = await get('/api/templates', {
        filter: { timestamp_gte: from, timestamp_lte: to },
        sort: ['timestamp', 'ASC'],
      }).expect(200);
      expect(ids(between.body)).toEqual(ids(templates.slice(2, 5)));
      const since = await get('/api/templates', { filter: { timestamp_gte: from, q: 'E' } }).expect(200);
      expect(ids(since.body).sort()).toEqual(ids([templates[2], templates[3], templates[4], templates[5]]).sort());
    });

    it('refuses a bad range, sort or filter with a 400 that says what is wrong', async () => {
      const cases: [Record<string, unknown>, RegExp][] = [
        [
          { sort: ['annotation_key', 'ASC'] },
          /sort must be \[field, "ASC" or "DESC"\] with field one of template_name, /,
        ],
        [{ sort: ['template_name', 'SIDEWAYS'] }, /sort must be/],
        [{ sort: 'template_name' }, /sort must be/],
        [{ range: [5, 1] }, /range must be \[start, end\]/],
        [{ range: [0, 100] }, /at most 100 rows/],
        [{ range: [-1, 3] }, /range must be/],
        [{ filter: [1] }, /filter must be a JSON object/],
        [
          { filter: { org_id: 'globex' } },
          /filter\.org_id is not a filter of this list; it takes q, timestamp_gte, timestamp_lte/,
        ],
        [{ filter: { q: { $ne: 1 } } }, /filter\.q must be text/],
        [{ filter: { q: 'x'.repeat(201) } }, /filter\.q must be at most 200 characters/],
        [{ filter: { timestamp_gte: 'yesterday' } }, /filter\.timestamp_gte must be an ISO 8601 date/],
        [{ filter: { timestamp_lte: '2026-02-31T99:00:00Z' } }, /filter\.timestamp_lte must be an ISO 8601 date/],
      ];
      for (const [query, message] of cases) {
        const res = await get('/api/templates', query);
        expect({ query, status: res.status }).toEqual({ query, status: 400 });
        expect(res.body.error).toBe('VALIDATION_FAILED');
        expect(res.body.message).toMatch(message);
      }
      const notJson = await t.http.get('/api/templates').query({ sort: '["template_name"' }).set('apikey', key);
      expect(notJson.status).toBe(400);
      expect(notJson.body.message).toBe('sort must be JSON.');
      const unknown = await t.http.get('/api/templates').query({ page: '2' }).set('apikey', key);
      expect(unknown.status).toBe(400);
      expect(unknown.body.message).toMatch(/page/);
    });

    it("lists only the caller's organisation's templates", async () => {
      const mine = await get('/api/templates', { range: [0, 99] }).expect(200);
      expect(ids(mine.body)).not.toContain(othersTemplate.id);
      const theirs = await get('/api/templates', { filter: { q: 'Gamma' } }, otherKey).expect(200);
      expect(ids(theirs.body)).toEqual([othersTemplate.id]);
      expect(theirs.headers['content-range']).toBe('templates 0-0/1');
      const sorted = await get('/api/templates', { sort: ['template_name', 'ASC'], range: [0, 99] }, otherKey);
      expect(ids(sorted.body)).toEqual([othersTemplate.id]);
      expect(sorted.headers['x-total-count']).toBe('1');
    });
  });

  describe('API keys', () => {
    it('pages newest first, organisation keys only, with Content-Range and X-Total-Count', async () => {
      const all = await get('/api/api-keys').expect(200);
      expect(all.headers['content-range']).toBe('api-keys 0-3/4');
      expect(all.headers['x-total-count']).toBe('4');
      expect(ids(all.body)).toEqual(ids([...keys].reverse()));
      const page = await get('/api/api-keys', { range: [1, 2] }).expect(200);
      expect(page.headers['content-range']).toBe('api-keys 1-2/4');
      expect(ids(page.body)).toEqual(ids([...keys].reverse()).slice(1, 3));
    });

    it('sorts by name (case aside), prefix, id, created, last used and revoked time', async () => {
      for (const order of ['ASC', 'DESC'] as const) {
        const names = await get('/api/api-keys', { sort: ['name', order] }).expect(200);
        const expected = ['alpha deploy', 'CI runner', 'nightly bulk', 'zeta_sync'];
        expect(names.body.map((k: ApiKeySummary) => k.name)).toEqual(
          order === 'ASC' ? expected : [...expected].reverse(),
        );
        // Prefixes are random: byte order on SQLite; MySQL's *_ci collations order them case aside.
        const prefixes = await get('/api/api-keys', { sort: ['prefix', order] }).expect(200);
        const sortedPrefixes = keys.map((k) => k.prefix).sort();
        if (engine === 'sqlite')
          expect(prefixes.body.map((k: ApiKeySummary) => k.prefix)).toEqual(
            order === 'ASC' ? sortedPrefixes : sortedPrefixes.reverse(),
          );
        const other = await get('/api/api-keys', { sort: ['prefix', order === 'ASC' ? 'DESC' : 'ASC'] }).expect(200);
        expect(ids(prefixes.body)).toEqual(ids(other.body).reverse());
        expect(ids(prefixes.body).sort()).toEqual(ids(keys).sort());
        const byId = await get('/api/api-keys', { sort: ['id', order] }).expect(200);
        expect(ids(byId.body)).toEqual(ordered(keys, () => 0, order));
        const created = await get('/api/api-keys', { sort: ['created_at', order] }).expect(200);
        expect(ids(created.body)).toEqual(order === 'ASC' ? ids(keys) : ids([...keys].reverse()));
      }

      // The oldest key used a minute later is the last used; a revoked key sorts by its revocation.
      t.clock.advance(60);
      const oldest = (await t.http.post('/api/api-keys').set('apikey', key).send({ name: 'throwaway' }).expect(201))
        .body as ApiKeySummary & { key: string };
      await t.http.delete(`/api/api-keys/${oldest.id}`).set('apikey', key).expect(200);
      const created: ApiKeySummary & { key: string } = (
        await t.http.post('/api/api-keys').set('apikey', key).send({ name: 'used' }).expect(201)
      ).body;
      t.clock.advance(60);
      await t.http.get('/api/whoami').set('apikey', created.key).expect(200);
      const used = await get('/api/api-keys', { sort: ['last_used_at', 'DESC'], range: [0, 0] }).expect(200);
      expect(ids(used.body)).toEqual([created.id]);
      expect(used.body[0].last_used_at > used.body[0].created_at).toBe(true);
      const revoked = await get('/api/api-keys', { sort: ['revoked_at', 'DESC'], range: [0, 0] }).expect(200);
      expect(ids(revoked.body)).toEqual([oldest.id]);
      const notRevokedFirst = await get('/api/api-keys', { sort: ['revoked_at', 'ASC'], range: [0, 99] }).expect(200);
      expect(notRevokedFirst.body[notRevokedFirst.body.length - 1].id).toBe(oldest.id);
      await t.http.delete(`/api/api-keys/${created.id}`).set('apikey', key).expect(200);
      keys.push(oldest, created);
    });

    it('filters by name or prefix (q) and by revocation', async () => {
      // Texts that no random prefix (eso_ and six base64url characters) holds.
      const ci = await get('/api/api-keys', { filter: { q: 'ci r' } }).expect(200);
      expect(ci.body.map((k: ApiKeySummary) => k.name)).toEqual(['CI runner']);
      expect(ci.headers['x-total-count']).toBe('1');
      const underscore = await get('/api/api-keys', { filter: { q: 'ta_s' } }).expect(200);
      expect(underscore.body.map((k: ApiKeySummary) => k.name)).toEqual(['zeta_sync']);
      const byPrefix = await get('/api/api-keys', { filter: { q: keys[0].prefix } }).expect(200);
      expect(ids(byPrefix.body)).toEqual([keys[0].id]);

      const revoked = await get('/api/api-keys', { filter: { revoked: true }, sort: ['name', 'ASC'] }).expect(200);
      expect(revoked.body.map((k: ApiKeySummary) => k.name)).toEqual(['throwaway', 'used']);
      expect(revoked.body.every((k: ApiKeySummary) => k.revoked_at !== null)).toBe(true);
      const active = await get('/api/api-keys', { filter: { revoked: false } }).expect(200);
      expect(active.headers['content-range']).toBe('api-keys 0-3/4');
      expect(active.body.every((k: ApiKeySummary) => k.revoked_at === null)).toBe(true);
      const both = await get('/api/api-keys', { filter: { revoked: 'false', q: 'LY B' } }).expect(200);
      expect(both.body.map((k: ApiKeySummary) => k.name)).toEqual(['nightly bulk']);
      const revokedNamed = await get('/api/api-keys', { filter: { revoked: true, q: 'ly b' } }).expect(200);
      expect(revokedNamed.body).toEqual([]);
    });

    it('refuses a bad range, sort or filter with a 400 that says what is wrong', async () => {
      const cases: [Record<string, unknown>, RegExp][] = [
        [{ sort: ['key_hash', 'ASC'] }, /with field one of name, prefix, created_at, last_used_at, revoked_at, id\./],
        [{ sort: ['name', 'UP'] }, /sort must be/],
        [{ range: [0, 100] }, /at most 100 rows/],
        [{ range: 'x' }, /range must be \[start, end\]/],
        [{ filter: 'x' }, /filter must be a JSON object/],
        [{ filter: { kind: 'session' } }, /filter\.kind is not a filter of this list; it takes q, revoked/],
        [{ filter: { revoked: 'maybe' } }, /filter\.revoked must be true or false/],
        [{ filter: { q: ['a'] } }, /filter\.q must be text/],
      ];
      for (const [query, message] of cases) {
        const res = await get('/api/api-keys', query);
        expect({ query, status: res.status }).toEqual({ query, status: 400 });
        expect(res.body.error).toBe('VALIDATION_FAILED');
        expect(res.body.message).toMatch(message);
      }
    });

    it("lists only the caller's organisation's keys", async () => {
      const mine = await get('/api/api-keys', { range: [0, 99] }).expect(200);
      expect(ids(mine.body)).not.toContain(othersKey.id);
      const searched = await get('/api/api-keys', { filter: { q: 'globex' } }).expect(200);
      expect(searched.body).toEqual([]);
      const theirs = await get('/api/api-keys', { sort: ['name', 'ASC'] }, otherKey).expect(200);
      expect(ids(theirs.body)).toEqual([othersKey.id]);
      expect(theirs.headers['content-range']).toBe('api-keys 0-0/1');
    });
  });

  it('the requests list answers X-Total-Count too', async () => {
    const res = await get('/api/requests', { range: [0, 4] }).expect(200);
    expect(res.headers['content-range']).toBe('requests 0-0/0');
    expect(res.headers['x-total-count']).toBe('0');
  });
});
