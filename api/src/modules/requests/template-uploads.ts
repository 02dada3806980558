import { Injectable } from '@nestjs/common';
import { FieldMessages, checkFieldValue, fieldLabel, fill, type FieldDefinition } from '@esign/contract';
import { AppError } from '../../common/app-error';
import type { AuthContext } from '../../common/auth/auth-context';
import { fillFormFields, signatureBoxesFromAnnotation } from '../documents/pdf/forms';
import { inspectPdf, type InspectedPdf } from '../documents/pdf/inspect';
import { TemplatesService } from '../templates/templates.service';
import type { PreparedDocument } from './request-drafts.service';
import type { ValidRecipient } from './recipients';
import { placeFields, type PartyField } from './fields';

/**
 * The template's fields for roles (issue 21) as each signer's fields: role n goes to the n-th recipient who needs to
 * sign (roles without one are left out), with the prefilled values sent with the upload (by field id) over the
 * template's own. Answers the fields per signer position (0-based among signers).
 */
function templateFields(
  definitions: FieldDefinition[],
  values: Record<string, string | number | boolean | null> | null,
  recipients: ValidRecipient[],
  doc: { totalPages: number; geometry: InspectedPdf['geometry'] },
  now: Date,
): Array<PartyField[] | null> {
  const known = new Set(definitions.map((d) => d.id));
  for (const id of Object.keys(values ?? {}))
    if (!known.has(id)) throw new AppError('VALIDATION_FAILED', fill(FieldMessages.unknownField, { id }));
  const signers = recipients.map((r, i) => ({ ...r, order: i + 1 })).filter((r) => !r.observer);
  return signers.map((signer, k) => {
    const mine = definitions.filter((d) => d.signer === k + 1);
    if (!mine.length) return null;
    const inputs = mine.map((d) => {
      let value = d.value ?? null;
      if (values && d.id in values) {
        const given = values[d.id];
        if (given === null || given === '') value = null;
        else {
          const checked = checkFieldValue(d, given);
          if (!checked.ok)
            throw new AppError(
              'VALIDATION_FAILED',
              fill(FieldMessages.prefillInvalid, { label: fieldLabel(d), reason: checked.message }),
            );
          value = checked.value;
        }
      }
      return { ...d, signer: signer.order, value };
    });
    return placeFields(inputs, { order: signer.order, name: signer.name, observer: false }, doc, [], now);
  });
}

/**
 * A request started from a template: the template's PDF with its form values filled in (the template's own values,
 * overridden by `formFieldValues` sent with the upload), and each signer's box taken from the template's signature
 * fields: the k-th signature field goes to the k-th signer.
 */
@Injectable()
export class TemplateUploads {
  constructor(private readonly templates: TemplatesService) {}

  preparer(
    auth: AuthContext,
    templateId: string,
    valuesInput: unknown,
    fieldValues: Record<string, string | number | boolean | null> | null = null,
  ) {
    return async (recipients: ValidRecipient[]): Promise<PreparedDocument> => {
      let overrides: Record<string, string | boolean> = {};
      if (valuesInput !== undefined && valuesInput !== '') {
        let parsed = valuesInput;
        if (typeof valuesInput === 'string') {
          try {
            parsed = JSON.parse(valuesInput);
          } catch {
            throw new AppError('VALIDATION_FAILED', 'formFieldValues must be a JSON object.');
          }
        }
        if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
          throw new AppError('VALIDATION_FAILED', 'formFieldValues must be a JSON object.');
        overrides = parsed as Record<string, string | boolean>;
      }
      const t = await this.templates.entity(auth.orgId, templateId);
      const annotation = await this.templates.annotation(t);
      const { bytes: original, filename } = await this.templates.file(auth.orgId, templateId);
      const values = { ...(annotation.formFieldValues ?? {}), ...overrides };
      const bytes = Object.keys(values).length ? await fillFormFields(original, values) : original;
      const inspected = await inspectPdf({ bytes, filename, mimeType: 'application/pdf' });
      const fields = signatureBoxesFromAnnotation(annotation, inspected.geometry);
      const signers = recipients.filter((r) => !r.observer);
      const placed = templateFields(annotation.fields ?? [], fieldValues, recipients, inspected, new Date());
      const signerBoxes = signers.map((_, k) => {
        const f = fields[k];
        const own = placed[k] ?? null;
        if (!f) return own ? { pageNo: null, boxes: null, fields: own } : undefined;
        return {
          pageNo: [f.page],
          boxes: [{ pages: String(f.page), x: f.x, y: f.y, width: f.width, height: f.height }],
          fields: own,
        };
      });
      return { inspected, filename, templateId: t.id, signerBoxes };
    };
  }
}
