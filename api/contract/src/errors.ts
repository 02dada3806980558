/**
 * Domain error codes of the API and the HTTP status each one is answered with. One table, used by the API's error
 * filter; clients may match on `error` in the body `{ code, error, message }`.
 */
export const ErrorStatus = {
  BAD_REQUEST: 400,
  VALIDATION_FAILED: 400,
  INVALID_JSON: 400,
  INVALID_CREDENTIALS: 401,
  NO_API_KEY: 401,
  SESSION_EXPIRED: 401,
  FORBIDDEN_ORGANISATION: 403,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  // A document link asked for a byte range that starts beyond the document's end (HTTP Range, issue 23).
  RANGE_NOT_SATISFIABLE: 416,
  TOO_MANY_ATTEMPTS: 429,
  INTERNAL: 500,
  UNAVAILABLE: 503,
  // A recipient call without a valid link token (missing, wrong, another party's, replaced by a resend).
  INVALID_LINK: 401,
  // A recipient call that acts on a request needing OTP, from a browser without a live signer session (never verified
  // on this device, unused too long, or its signing ended): the signer app asks for the OTP again.
  OTP_REQUIRED: 401,
  // A recipient action the request's state or rules do not allow (out of turn, not accepted, OTP not verified, method
  // not allowed, already signed, request closed, location blocked). 400 because the signer app shows the hold-on page
  // with the message on a 400 (spec section 8).
  SIGNING_REFUSED: 400,
  // The upload is a well-formed request but its document cannot be used (damaged, password protected, signed).
  INVALID_DOCUMENT: 422,
} as const;
export type ErrorCode = keyof typeof ErrorStatus;
