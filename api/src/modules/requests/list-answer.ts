import { parse } from 'node:querystring';
import { checkInput, requestListQuerySchema } from '@esign/contract';
import type { TenantGuard } from '../../common/auth/tenant.guard';
import {
  pathOf,
  sendDirect,
  weakEtag,
  type DirectAnswerParts,
  type DirectHandler,
} from '../../common/http/direct-answers';
import { pageHeaders } from '../../common/rest-query';
import type { CachedPage, ListPageCache } from './list-page-cache';
import { restQuery, type RequestListsService } from './request-lists.service';
import { RestRequestsController } from './rest-requests.controller';

/** The two lists as Nest registers them (RestRequestsController.list and .drafts): path, metric label, method. */
const LISTS = {
  requests: { route: '/api/requests', method: 'list', drafts: false },
  drafts: { route: '/api/drafts', method: 'drafts', drafts: true },
} as const;
/** Their paths as Express matches them: case-insensitive, an optional trailing slash. */
const PATH = /^\/api\/(requests|drafts)\/?$/i;

/**
 * The console's lists, `GET /api/requests` and `GET /api/drafts`, answered before Express when they succeed (issue 23:
 * Express and Nest's pipeline cost more CPU than the page itself). The same checks run (TenantGuard.resolve: the
 * apikey, every organisation the call names, the route's admin-only mark read from the controller), the same query
 * schema, the same service and the same answer: JSON as Express's res.json writes it with its ETag, Content-Range,
 * X-Total-Count, `Cache-Control: no-store`, the security headers, log line and metric, compressed as the same
 * compression middleware would (sendDirect). Whatever does not succeed (no key, another organisation named, a query
 * the schema refuses, a failing read) goes on to Express, which answers it as before; both are reads, so asking twice
 * changes nothing. A page is kept while nothing of its organisation changed (list-page-cache.ts); the key and the
 * organisation are checked on every call first.
 */
export function listAnswers(
  parts: DirectAnswerParts,
  guard: TenantGuard,
  lists: RequestListsService,
  pages: ListPageCache,
): DirectHandler {
  const routes = Object.fromEntries(
    Object.entries(LISTS).map(([name, list]) => {
      const { isPublic, adminOnly } = guard.routeOf(RestRequestsController, list.method);
      if (isPublic) throw new Error(`${list.route} is public: the list answer assumes the tenant guard`);
      return [name, { ...list, adminOnly }];
    }),
  ) as Record<keyof typeof LISTS, (typeof LISTS)[keyof typeof LISTS] & { adminOnly: boolean }>;

  return (req, res, next) => {
    const at = req.method === 'GET' ? pathOf(req) : null;
    const match = at && PATH.exec(at.path);
    if (!at || !match) return next();
    const list = routes[match[1].toLowerCase() as keyof typeof LISTS];
    // Express's default ('simple') query parser.
    const query = parse(at.query);
    const checked = checkInput(requestListQuerySchema, query);
    if (!checked.ok) return next();
    guard
      .resolve({ headers: req.headers, params: {}, query, body: undefined }, list.adminOnly)
      .then(async (auth): Promise<CachedPage> => {
        const q = restQuery(checked.value, list.drafts);
        // The version before the rows (list-page-cache.ts): a page built from newer rows is kept under an older one.
        const version = await pages.version(auth.orgId);
        const key = JSON.stringify([q.drafts, q.q ?? '', q.offset, q.limit, q.order, q.sortBy]);
        const kept = version === null ? undefined : pages.get(auth.orgId, key, version);
        if (kept) return kept;
        const { total, items } = list.drafts
          ? await lists.draftItems(auth.orgId, q)
          : await lists.listItems(auth.orgId, q);
        const body = Buffer.from(JSON.stringify(items));
        const page: CachedPage = {
          body,
          encoded: {},
          etag: weakEtag(body),
          headers: pageHeaders(list.drafts ? 'drafts' : 'requests', { rows: items, start: q.offset, total }),
        };
        if (version !== null) pages.put(auth.orgId, key, version, page);
        return page;
      })
      .then(
        ({ body, encoded, etag, headers }) => {
          sendDirect(parts, req, res, {
            path: at.path,
            route: () => list.route,
            headers: {
              ...headers,
              'Cache-Control': 'no-store',
              'Content-Type': 'application/json; charset=utf-8',
            },
            body,
            etag,
            compress: encoded,
          });
        },
        () => next(),
      );
  };
}
