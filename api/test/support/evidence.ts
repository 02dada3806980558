import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

/**
 * The long-term evidence of a signed PDF, read without the product's code (pkijs for the CMS, OpenSSL for every
 * timestamp): each signature's signature-timestamp token verified by `openssl ts -verify` against the SHA-256 of its
 * signature value, each document timestamp against the bytes it covers, whether a /DSS is there, and whether the last
 * revision is a document timestamp.
 */

export interface SignatureEvidence {
  /** ETSI.CAdES.detached or ETSI.RFC3161. */
  subFilter: string;
  byteRange: [number, number, number, number];
  /** For a CAdES signature: its signature-timestamp token checked by OpenSSL (null: it has none). */
  timestampVerified: boolean | null;
  /** For a document timestamp: `openssl ts -verify` over the bytes it covers. */
  documentTimestampVerified: boolean | null;
  /** OpenSSL's output when a check failed. */
  detail?: string;
}

export interface DocumentEvidence {
  signatures: SignatureEvidence[];
  dss: boolean;
  /** The last revision is a document timestamp whose ByteRange covers the file up to its end. */
  endsWithDocumentTimestamp: boolean;
}

const TS_OID = '1.2.840.113549.1.9.16.2.14';

function openssl(args: string[]): { ok: boolean; out: string } {
  const run = spawnSync('openssl', args, { encoding: 'utf8' });
  return { ok: run.status === 0, out: `${run.stdout}\n${run.stderr}` };
}

/** Every signature dictionary's /ByteRange and /Contents (in file order), and its /SubFilter. */
function signatureDictionaries(pdf: Buffer): { subFilter: string; byteRange: [number, number, number, number] }[] {
  const text = pdf.toString('latin1');
  const found: { subFilter: string; byteRange: [number, number, number, number] }[] = [];
  for (const match of text.matchAll(/\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/g)) {
    const byteRange = match.slice(1, 5).map(Number) as [number, number, number, number];
    if (byteRange[0] !== 0 || byteRange[2] + byteRange[3] > pdf.length) continue;
    // The dictionary around it: its /SubFilter is within a few hundred bytes either side.
    const around = text.slice(Math.max(0, match.index! - 600), match.index! + 600);
    const subFilter = /\/SubFilter\s*\/([\w.]+)/.exec(around)?.[1] ?? 'unknown';
    found.push({ subFilter, byteRange });
  }
  return found.sort((a, b) => a.byteRange[1] - b.byteRange[1]);
}

/** The DER in /Contents without the zeros that pad it: the outer element's own length decides where it ends. */
const contentsOf = (pdf: Buffer, [, length1, offset2]: number[]): Buffer => {
  const padded = Buffer.from(pdf.toString('latin1', length1 + 1, offset2 - 1), 'hex');
  const parsed = asn1js.fromBER(new Uint8Array(padded));
  if (parsed.offset === -1) throw new Error('/Contents does not hold DER');
  return padded.subarray(0, parsed.offset);
};

function signedDataOf(der: Buffer): pkijs.SignedData {
  const info = new pkijs.ContentInfo({ schema: asn1js.fromBER(new Uint8Array(der)).result });
  return new pkijs.SignedData({ schema: info.content });
}

export function documentEvidence(pdf: Buffer, caPem: string): DocumentEvidence {
  const dir = mkdtempSync(join(tmpdir(), 'esign-evidence-'));
  try {
    const ca = join(dir, 'ca.pem');
    writeFileSync(ca, caPem);
    const signatures: SignatureEvidence[] = [];
    for (const [index, sig] of signatureDictionaries(pdf).entries()) {
      const der = contentsOf(pdf, sig.byteRange);
      const entry: SignatureEvidence = {
        subFilter: sig.subFilter,
        byteRange: sig.byteRange,
        timestampVerified: null,
        documentTimestampVerified: null,
      };
      if (sig.subFilter === 'ETSI.RFC3161') {
        const token = join(dir, `doc${index}.tst`);
        const data = join(dir, `doc${index}.bin`);
        writeFileSync(token, der);
        const [o1, l1, o2, l2] = sig.byteRange;
        writeFileSync(data, Buffer.concat([pdf.subarray(o1, o1 + l1), pdf.subarray(o2, o2 + l2)]));
        const run = openssl(['ts', '-verify', '-in', token, '-token_in', '-data', data, '-CAfile', ca]);
        entry.documentTimestampVerified = run.ok;
        if (!run.ok) entry.detail = run.out;
      } else {
        const signer = signedDataOf(der).signerInfos[0];
        const attribute = signer.unsignedAttrs?.attributes.find((a) => a.type === TS_OID);
        if (attribute) {
          const token = join(dir, `sig${index}.tst`);
          writeFileSync(token, Buffer.from(attribute.values[0].toBER(false)));
          const imprint = createHash('sha256')
            .update(Buffer.from(signer.signature.valueBlock.valueHexView))
            .digest('hex');
          const run = openssl(['ts', '-verify', '-in', token, '-token_in', '-digest', imprint, '-CAfile', ca]);
          entry.timestampVerified = run.ok;
          if (!run.ok) entry.detail = run.out;
        }
      }
      signatures.push(entry);
    }
    const last = signatures[signatures.length - 1];
    return {
      signatures,
      dss: /\/DSS\s*(\d+\s+0\s+R|<<)/.test(pdf.toString('latin1')),
      endsWithDocumentTimestamp:
        last?.subFilter === 'ETSI.RFC3161' && last.byteRange[2] + last.byteRange[3] === pdf.length,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
