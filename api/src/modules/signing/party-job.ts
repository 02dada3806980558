import { SigningMethod, dateSignedValue, type SigningMethodCode } from '@esign/contract';
import type { PlacedBox } from '../documents/pdf/geometry';
import type { AttachmentEmbedding, FieldDrawing, FieldSpec, StampInput } from './pdf/engine';
import { signedByLines } from './signed-by';

/**
 * One party's signature as the signing engine takes it (issue 20, "Signing is an engine"): which document it is made
 * on, who signs, where and how it shows, with which method. The request's side builds it from its rows; nothing here
 * knows a request's or a party's entity.
 */
export interface PartySignatureJob {
  refId: number;
  /** The organisation's time zone, for the date in the visible signature. */
  timeZone: string;
  /** The stored document the signature is made on (the request's current one). */
  baseFileKey: string;
  method: SigningMethodCode;
  signer: {
    /** 1-based signing order: names the signature field (esign_party_{order}). */
    order: number;
    name: string;
    email: string | null;
    boxes: PlacedBox[];
    /** Where they signed, from their location check (the signature's /Location). */
    country: string | null;
  };
  /** What the boxes show beside the signed-by lines: the drawn or uploaded image, or the name typed (normal or italic). */
  appearance: { image: Uint8Array | null; typed: { italic: boolean } | null };
  /** The party's filled fields (issue 21): drawn in this signature's revision; a date field's value is set at signing. */
  fields?: FieldDrawing[];
  /** The party's attachments (stored documents), embedded in this signature's revision. */
  attachments?: AttachmentSource[];
}

/** An attachment as the job names it: the stored file's key, read when the document is prepared. */
export type AttachmentSource = Omit<AttachmentEmbedding, 'bytes'> & { key: string };

/** The job's attachments with their bytes, read from storage (`read`). */
export async function attachmentsOf(
  job: PartySignatureJob,
  read: (key: string) => Promise<Uint8Array>,
): Promise<AttachmentEmbedding[]> {
  const out: AttachmentEmbedding[] = [];
  for (const { key, ...rest } of job.attachments ?? []) out.push({ ...rest, bytes: await read(key) });
  return out;
}

const HOW: Record<SigningMethodCode, string> = {
  [SigningMethod.ESignature]: 'with an electronic signature',
  [SigningMethod.Aadhaar]: 'with Aadhaar eSign',
  [SigningMethod.DSC]: 'with a DSC',
};

/** The stamp and the signature field of a party's signature, made at `now`. */
export function partySignatureSpec(
  job: PartySignatureJob,
  now: Date,
  attachments: AttachmentEmbedding[] = [],
): { stamp: StampInput; field: FieldSpec } {
  const { signer } = job;
  return {
    stamp: {
      boxes: signer.boxes,
      image: job.appearance.image,
      text: job.appearance.typed ? { value: signer.name, italic: job.appearance.typed.italic } : null,
      signedBy: signedByLines(signer.name, now, job.method, job.refId, job.timeZone),
      fields: (job.fields ?? []).map((f) =>
        f.kind === 'date' ? { ...f, value: dateSignedValue(now, job.timeZone) } : f,
      ),
      attachments,
    },
    field: {
      fieldName: `esign_party_${signer.order}`,
      name: signer.name,
      reason: `Signed by ${signer.name} ${HOW[job.method]} (Ref ID ${job.refId})`,
      location: signer.country,
      contactInfo: signer.email,
      signingTime: now,
    },
  };
}
