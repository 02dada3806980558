/**
 * Route paths (`/esign/:orgId/…`) → one regular expression matching a request's path as Express matches them
 * (case-insensitive, an optional trailing slash, a parameter being one non-empty segment).
 */
export const routePattern = (routes: readonly string[]): RegExp =>
  new RegExp(
    `^(?:${routes
      .map((r) =>
        r
          .split(/(:[A-Za-z_]\w*)/)
          .map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
          .join(''),
      )
      .join('|')})/?$`,
    'i',
  );
