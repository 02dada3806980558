/**
 * The specification's route table (section 2) and the API's path prefixes. The server uses it to serve the two web
 * apps at these routes and to redirect every other page to /not-found; the apps use it for their routers.
 */
export const StaffRoutes = {
  signIn: '/sign-in',
  dashboard: '/dashboard',
  drafts: '/drafts',
  requestInitiate: '/request-initiate',
  upload: '/upload',
  mailSent: '/mail-sent',
  notFound: '/not-found',
  list: '/list',
  // Not in the specification's table: the template editor behind '+ Create Template', and the dev outbox viewer of the
  // embedded default (messages are not sent anywhere without SMTP_URL / SMS_URL).
  templates: '/templates',
  templateCreate: '/templates/create',
  outbox: '/outbox',
  // Not in the specification's table either: the organisation's settings (identity checks for signers).
  settings: '/settings',
  // Issue 22: the console's react-admin resources. The requests resource's list is /dashboard (its own /requests
  // leads there); a request's page is its show route.
  requests: '/requests',
  requestShow: '/requests/:id/show',
  // The organisation's administration (administrators only; the pages say 'not allowed' to anyone else).
  users: '/users',
  userCreate: '/users/create',
  userEdit: '/users/:id',
  apiKeys: '/api-keys',
  apiKeyCreate: '/api-keys/create',
  webhooks: '/webhooks',
  webhookCreate: '/webhooks/create',
  webhookShow: '/webhooks/:id/show',
  deliveries: '/deliveries',
  // Issue 24: a signer's data (export, erasure), administrators only.
  signerData: '/signer-data',
  // Public, without a layout: where an invitation's or a password reset's link lands (`?token=`), like /sign-in.
  setPassword: '/set-password',
} as const;

/**
 * Console routes served by admin/ (public ones included: /sign-in, /not-found, /list, /set-password), as
 * Express-style patterns (`:id` is one path segment).
 */
export const CONSOLE_ROUTES: readonly string[] = Object.values(StaffRoutes);

/** The console's public routes: no session needed, no staff layout. */
export const PUBLIC_CONSOLE_ROUTES: readonly string[] = [
  StaffRoutes.signIn,
  StaffRoutes.notFound,
  StaffRoutes.list,
  StaffRoutes.setPassword,
];

/** Whether a path is one of the route patterns given (a trailing slash and letter case ignored, as the server does). */
export function matchesRoute(patterns: readonly string[], pathname: string): boolean {
  const path = pathname.replace(/\/+$/, '') || '/';
  return patterns.some((pattern) => {
    const want = pattern.split('/');
    const got = path.split('/');
    return (
      want.length === got.length &&
      want.every((part, i) => (part.startsWith(':') ? got[i] !== '' : part.toLowerCase() === got[i].toLowerCase()))
    );
  });
}

/** Recipient routes served by signer-web/, as Express-style patterns. */
export const SignerRoutes = {
  esign: '/esign/:orgId/:refId/:order',
  success: '/success/:orgId/:requestId',
  failed: '/failed/:orgId/:requestId',
  retryMailSent: '/retry-mail-sent',
} as const;
export const SIGNER_ROUTES: readonly string[] = Object.values(SignerRoutes);

/** Path prefixes answered by the API itself, never by a web app. */
export const API_PREFIXES = ['/v1', '/api', '/consumers', '/docs', '/health', '/api-docs', '/esp-sandbox'] as const;

export const logoPath = (orgId: string): string => `/docs/logos/${encodeURIComponent(orgId)}.png`;

/**
 * The product's own logo, for pages that belong to no one organisation (/list, the recipient's list across
 * organisations): the logo path of an id no organisation can have (ids start with a letter or digit), which the API
 * answers with the product's default logo.
 */
export const PRODUCT_LOGO_PATH = '/docs/logos/_product.png';

/** Header names of the contract. */
export const Headers = {
  apiKey: 'apikey',
  orgId: 'org-id',
  signToken: 'x-sign-token',
  /** The signer session a verified OTP gave this browser tab (issue 18): needed to act on an OTP request. */
  signerSession: 'x-signer-session',
  requestId: 'x-request-id',
} as const;
