import { parse } from 'node:querystring';
import {
  DIRECT_MAX_BYTES,
  pathOf,
  sendDirect,
  weakEtag,
  type DirectAnswerParts,
  type DirectHandler,
} from '../../common/http/direct-answers';
import type { RecipientsService } from './recipients.service';
import type { SignerLinkGuard } from './signer-link.guard';

/** The route as Nest registers it (RecipientsController.reference): its metric label. */
const ROUTE = '/v1/reference/:orgId/:refId/:orderNo';
/** Its path as Express matches it: case-insensitive, each parameter one non-empty segment, an optional slash. */
const PATH = /^\/v1\/reference\/([^/]+)\/([^/]+)\/([^/]+)\/?$/i;

/**
 * The signing page's first call, `GET /v1/reference/{orgId}/{refId}/{orderNo}`, answered before Express when it
 * succeeds (issue 23: Express alone costs more CPU per request on this machine than the call's own work). The same
 * checks run (SignerLinkGuard.resolve: the link token, every name of the call bound to its party) and the same
 * answer is sent (RecipientsService.reference, JSON as Express's res.json writes it, `Cache-Control: no-store`, the
 * security headers, log line, metric and ETag). Whatever does not succeed (a refused token, a closed request's error, a
 * parameter that is not what Express would decode, another method) goes on to Express, which answers it as before, so
 * every error keeps its one code path; both are reads, so asking twice changes nothing.
 */
export function referenceAnswers(
  parts: DirectAnswerParts,
  guard: SignerLinkGuard,
  recipients: RecipientsService,
): DirectHandler {
  return (req, res, next) => {
    const at = req.method === 'GET' ? pathOf(req) : null;
    const match = at && PATH.exec(at.path);
    if (!at || !match) return next();
    let params: Record<string, string>;
    try {
      const [orgId, refId, orderNo] = match.slice(1).map((segment) => decodeURIComponent(segment));
      params = { orgId, refId, orderNo };
    } catch {
      return next();
    }
    // Express's default ('simple') query parser.
    const query = parse(at.query);
    guard
      .resolve({ headers: req.headers, params, query, body: undefined }, false)
      .then((signer) => recipients.reference(signer))
      .then(
        (answer) => {
          const body = Buffer.from(JSON.stringify(answer));
          // Longer answers are compressed by Express's middleware.
          if (body.length >= DIRECT_MAX_BYTES) return next();
          sendDirect(parts, req, res, {
            path: at.path,
            route: () => ROUTE,
            headers: { 'Cache-Control': 'no-store', 'Content-Type': 'application/json; charset=utf-8' },
            body,
            etag: weakEtag(body),
          });
        },
        () => next(),
      );
  };
}
