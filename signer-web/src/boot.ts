import { SignerRoutes } from '@esign/contract/routes';
import { openEarly } from './esign/pdf';
import { pdfWorkerPort } from './esign/pdf-early';
import { documentPath, signerHeaders, signToken } from './link';

/**
 * The page's first script (an entry of its own, run as soon as it arrives: vite.config.ts, earlyEntry). On a signing
 * link it starts pdf.js's worker thread, pdf.js itself and the reading of the document's first and last chunks at
 * once, while the browser is still evaluating React and the app, instead of after them (issue 23). The server gives
 * the document only where the page would show it; otherwise the early opening fails quietly and the viewer asks again
 * when it is shown.
 */
const esign = new RegExp(`^${SignerRoutes.esign.replace(/:([^/]+)/g, '(?<$1>[^/]+)')}/?$`);
const link = esign.exec(window.location.pathname)?.groups;
if (link) {
  pdfWorkerPort();
  try {
    // The address's segments as the router reads them (decoded); documentPath encodes them again.
    const [orgId, refId, order] = [link.orgId, link.refId, link.order].map((part) => decodeURIComponent(part ?? ''));
    if (signToken()) openEarly(documentPath(orgId, refId, order), signerHeaders());
  } catch {
    // A malformed address: the app shows what it shows for it.
  }
}
