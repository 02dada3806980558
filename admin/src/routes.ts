import { CONSOLE_ROUTES, PUBLIC_CONSOLE_ROUTES, matchesRoute } from '@esign/contract';

/**
 * Console routes behind the staff layout and the session check: the route table's staff routes (spec section 2), the
 * resources' routes (issue 22) and the pages the specification does not list (templates, outbox, settings).
 */
export const STAFF_PATHS: readonly string[] = CONSOLE_ROUTES.filter((route) => !PUBLIC_CONSOLE_ROUTES.includes(route));

export const isStaffPath = (pathname: string): boolean => matchesRoute(STAFF_PATHS, pathname);
