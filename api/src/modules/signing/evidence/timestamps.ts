/**
 * RFC 3161 timestamps (issue 19): the signature-timestamp token on every signature (B-T), the document timestamps of
 * the archive (B-LTA). One abstract class, one implementation chosen by configuration: the TSAs of `TSA_URLS`, tried
 * in order, or the built-in development TSA (served at /tsa and called in process).
 */

/** A checked timestamp token: the nonce, the imprint, the policy, the TSA's certificate and its signature held. */
export interface TimestampToken {
  /** DER of the TimeStampToken (a CMS ContentInfo of SignedData over TSTInfo), as the TSA answered it. */
  token: Uint8Array;
  /** TSTInfo genTime. */
  time: Date;
  /** Who answered: the URL without its credentials, or 'built-in development TSA'. */
  tsa: string;
  /** TSTInfo serialNumber, hex. */
  serial: string;
  /** TSTInfo policy OID. */
  policy: string;
  /** The TSA's certificate and the rest of its chain as the token carries them (DER), for the DSS. */
  certificates: Uint8Array[];
}

/** One TSA's failure, as recorded (never with credentials in it). */
export interface TimestampAttempt {
  tsa: string;
  reason: string;
}

/** No TSA answered with a token that passed every check: each one's reason, in the order they were tried. */
export class TimestampUnavailableError extends Error {
  constructor(readonly attempts: TimestampAttempt[]) {
    super(
      `No timestamp authority answered with a valid token: ${attempts.map((a) => `${a.tsa}: ${a.reason}`).join('; ')}`,
    );
    this.name = 'TimestampUnavailableError';
  }
}

export abstract class Timestamps {
  /**
   * A timestamp token over a SHA-256 digest (the signature value's hash for B-T, the document's ByteRange hash for a
   * document timestamp). Tries every configured TSA in order; throws TimestampUnavailableError when none gave a token
   * that passed the checks.
   */
  abstract timestamp(digest: Uint8Array): Promise<TimestampToken>;

  /** What signs the timestamps, for the audit trail and the certificate of completion. */
  abstract describe(): { builtIn: boolean; tsas: string[] };
}
