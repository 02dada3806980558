import { SigningMethod, fieldLabel, type SigningMethodCode } from '@esign/contract';
import type { OrganisationEntity } from '../organisations/organisation.entity';
import type { PartySignatureJob } from '../signing/party-job';
import { fieldDrawings, fieldPageBox } from './fields';
import type { PartyEntity } from './party.entity';
import type { RequestEntity } from './request.entity';

/**
 * A party's signature as the signing engine's typed job, from the request's rows: made on the request's current
 * document, in the organisation's time zone. An electronic signature shows the party's drawn or uploaded image (read
 * by the caller) or typed name; an Aadhaar or DSC signature shows the name.
 */
export function partySignatureJob(
  req: Pick<RequestEntity, 'refId' | 'fileKey' | 'signedFileKey' | 'geometry'>,
  party: Pick<
    PartyEntity,
    'order' | 'name' | 'email' | 'boxes' | 'geo' | 'signatureKind' | 'signatureStyle' | 'fields'
  >,
  org: Pick<OrganisationEntity, 'timeZone'>,
  method: SigningMethodCode,
  image: Uint8Array | null = null,
): PartySignatureJob {
  const electronic = method === SigningMethod.ESignature;
  return {
    refId: req.refId,
    timeZone: org.timeZone,
    baseFileKey: req.signedFileKey ?? req.fileKey,
    method,
    signer: {
      order: party.order,
      name: party.name,
      email: party.email,
      // Signature fields placed beside the box (issue 21) are more boxes of the same stamp.
      boxes: [
        ...(party.boxes ?? []),
        ...(party.fields ?? []).filter((f) => f.kind === 'signature').map((f) => fieldPageBox(f, req.geometry)),
      ],
      country: party.geo?.country ?? null,
    },
    appearance: electronic
      ? { image, typed: party.signatureKind === 'typed' ? { italic: party.signatureStyle === 'italic' } : null }
      : { image: null, typed: { italic: false } },
    fields: fieldDrawings(party.fields),
    attachments: (party.fields ?? []).flatMap((f) =>
      f.kind === 'attachment' && f.attachment && f.sha256
        ? [
            {
              fieldId: f.id,
              key: f.attachment.key,
              name: f.attachment.name,
              type: f.attachment.type,
              sha256: f.sha256,
              description: `${fieldLabel(f)}, attached by ${party.name}`,
            },
          ]
        : [],
    ),
  };
}
