/**
 * The recipient calls: no organisation apikey, the party's link token instead (SignerLinkGuard). Each must answer 401
 * INVALID_LINK without a token (below); recipient-links.test.ts proves a token opens only its own party.
 */
export const SIGNER_LINK_ROUTES = [
  'GET /v1/reference/:orgId/:refId/:orderNo',
  'GET /v1/document/:orgId/:refId/:orderNo',
  'GET /v1/sendotp/:orgId/:refId/:order',
  'POST /v1/verifyotp/:userId',
  'POST /v1/signer_details/:orgId/:refId/:orderNo',
  'GET /v1/location_required/:orgId',
  'POST /v1/get_location',
  'GET /v1/video_org_status/:orgId',
  'POST /v1/liveness/:orgId/:requestId',
  'GET /v1/init/:orgId/:requestId',
  'POST /v1/esignature/:orgId/:requestId',
  'GET /v1/request/:orgId/:requestId',
  'POST /v1/esign/reject/:orgId/:refId/:orderNo',
  'GET /v1/download/:orgId/:requestId',
  'POST /v1/failed/:orgId/:requestId',
  'GET /v1/retry/:orgId/:requestId',
  'GET /v1/aadhaar_discrepancy_check/:requestId',
  'POST /v1/dscToken/:orgId/:requestId',
  'GET /v1/fields/:orgId/:refId/:orderNo',
  'POST /v1/fields/:orgId/:refId/:orderNo',
  'POST /v1/fields/:orgId/:refId/:orderNo/:fieldId/attachment',
  'DELETE /v1/fields/:orgId/:refId/:orderNo/:fieldId/attachment',
].sort();

/**
 * /list, the recipient's own list (issue 18, point 13): public, no organisation key and no link token. The OTP sent to
 * the address is the proof; the list token it gives reads only that address's rows (test/recipient-list.test.ts;
 * guessing and the logs in test/security). They name no organisation, so there is nothing for the tenant guard.
 */
export const RECIPIENT_LIST_ROUTES = [
  'POST /v1/recipient/login',
  'POST /v1/recipient/verify',
  'GET /v1/recipient/requests',
].sort();
