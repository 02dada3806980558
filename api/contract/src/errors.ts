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
  TOO_MANY_ATTEMPTS: 429,
  INTERNAL: 500,
  UNAVAILABLE: 503,
  // The upload is a well-formed request but its document cannot be used (damaged, password protected, signed).
  INVALID_DOCUMENT: 422,
} as const;
export type ErrorCode = keyof typeof ErrorStatus;
