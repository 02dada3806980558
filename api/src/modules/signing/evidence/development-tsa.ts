import { Injectable } from '@nestjs/common';
import { Clock } from '../../../common/clock';
import { SealPkiService } from '../pki/seal-pki.service';
import { answerTimestampQuery, newTokenSerial, tsaSigner, type TsaSigner } from './tsa-answer';
import { DEV_TSA_POLICY } from './tsp';

/** How the development TSA is named in tokens' records, the audit trail and the certificate of completion. */
export const DEV_TSA_NAME = 'built-in development TSA';

/** Signings of one answer at most until its last byte is not 0x00 (eight in a row: one chance in 2^64). */
const MAX_SIGNINGS = 8;

/**
 * The built-in development timestamp authority (without TSA_URLS), like the sandbox ESP stands in for a licensed ESP:
 * RFC 3161 answers signed with the key `SealPkiService.devTsa()` keeps in the database (certified by the development
 * root, so every node signs with the same one), genTime from the injected Clock. Served at POST /tsa and called in
 * process by the Timestamps implementation.
 */
@Injectable()
export class DevelopmentTsa {
  private signer: Promise<TsaSigner> | null = null;

  constructor(
    private readonly pki: SealPkiService,
    private readonly clock: Clock,
  ) {}

  /**
   * The answer (a DER TimeStampResp) to a DER TimeStampReq: a token, or a rejection saying what is wrong with it.
   *
   * Never one whose last byte is 0x00: a token ends with its signature's last byte, and so does a CMS signature whose
   * signature timestamp is its last attribute, and verifiers that take a PDF's /Contents up to its last non-zero byte
   * (the zero padding stripped, not the DER's length read; the shared pdf-verify tool is one) cut such a token short
   * and find its document timestamp broken, once in 256. Another serial number signs other bytes.
   */
  async answer(query: Uint8Array): Promise<Uint8Array> {
    const key = await this.key();
    let answer: Uint8Array;
    let tries = 0;
    do {
      answer = await answerTimestampQuery(query, key, {
        now: this.clock.now(),
        policy: DEV_TSA_POLICY,
        serial: newTokenSerial(),
        accuracySeconds: 1,
      });
    } while (answer[answer.length - 1] === 0 && ++tries < MAX_SIGNINGS);
    return answer;
  }

  private key(): Promise<TsaSigner> {
    if (!this.signer) {
      this.signer = this.pki.devTsa().then((tsa) => tsaSigner(tsa.certPem, tsa.keyPem));
      this.signer.catch(() => (this.signer = null));
    }
    return this.signer;
  }
}
