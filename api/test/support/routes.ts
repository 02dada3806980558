/**
 * The recipient calls: no organisation apikey, the party's link token instead (SignerLinkGuard). Each must answer 401
 * INVALID_LINK without a token (below); recipient-links.test.ts proves a token opens only its own party.
 */
export const SIGNER_LINK_ROUTES = [
  'GET /v1/reference/:orgId/:refId/:orderNo',
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
].sort();
