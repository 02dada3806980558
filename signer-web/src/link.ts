import { Headers as ApiHeaders } from '@esign/contract/routes';

// What identifies this tab's signer: read by boot.ts before the app's own modules have loaded, so nothing here imports
// more than the route table.

const TOKEN_KEY = 'esign:token';

/**
 * The recipient's link token: `/esign/{orgId}/{refId}/{order}?token=…` (DESIGN.md section 3). Kept for this tab only
 * (sessionStorage), so the success and failed pages, reached without it in their address, still act for the party.
 */
export const signToken = (search: string = window.location.search): string | null => {
  const fromLink = new URLSearchParams(search).get('token');
  if (fromLink) {
    sessionStorage.setItem(TOKEN_KEY, fromLink);
    return fromLink;
  }
  return sessionStorage.getItem(TOKEN_KEY);
};

const SESSION_KEY = 'esign:session';

/**
 * The signer session a verified OTP gave this tab (issue 18): kept in this tab's session storage with the link it
 * belongs to, so a reload keeps it, another tab or device has none, and another link in this tab does not use it.
 */
export const signerSession = (): string | null => {
  try {
    const kept = JSON.parse(sessionStorage.getItem(SESSION_KEY) ?? 'null') as {
      link?: string;
      session?: string;
    } | null;
    return kept && kept.link === signToken() && typeof kept.session === 'string' ? kept.session : null;
  } catch {
    return null;
  }
};

export const keepSignerSession = (session: string): void => {
  const link = signToken();
  if (link) sessionStorage.setItem(SESSION_KEY, JSON.stringify({ link, session }));
};

export const dropSignerSession = (): void => sessionStorage.removeItem(SESSION_KEY);

/** The signing page's first call: the party's request (GET /v1/reference/{orgId}/{refId}/{order}). */
export const referencePath = (orgId: string, refId: string, order: string): string =>
  `/v1/reference/${[orgId, refId, order].map(encodeURIComponent).join('/')}`;

/**
 * The signer's document (GET /v1/document/{orgId}/{refId}/{order}): what the reference's uploadUrl shows, asked for
 * with the link token (signerHeaders), so the viewer can open it before the reference call has answered (issue 23).
 */
export const documentPath = (orgId: string, refId: string, order: string): string =>
  `/v1/document/${[orgId, refId, order].map(encodeURIComponent).join('/')}`;

/** The headers that carry this tab's link token and signer session. */
export const signerHeaders = (): Record<string, string> => {
  const headers: Record<string, string> = {};
  const token = signToken();
  if (token) headers[ApiHeaders.signToken] = token;
  const session = signerSession();
  if (session) headers[ApiHeaders.signerSession] = session;
  return headers;
};
