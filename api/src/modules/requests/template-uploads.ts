import { Injectable } from '@nestjs/common';
import { AppError } from '../../common/app-error';
import type { AuthContext } from '../../common/auth/auth-context';
import { fillFormFields, signatureBoxesFromAnnotation } from '../documents/pdf/forms';
import { inspectPdf } from '../documents/pdf/inspect';
import { TemplatesService } from '../templates/templates.service';
import type { PreparedDocument } from './request-drafts.service';
import type { ValidRecipient } from './recipients';

/**
 * A request started from a template: the template's PDF with its form values filled in (the template's own values,
 * overridden by `formFieldValues` sent with the upload), and each signer's box taken from the template's signature
 * fields: the k-th signature field goes to the k-th signer.
 */
@Injectable()
export class TemplateUploads {
  constructor(private readonly templates: TemplatesService) {}

  preparer(auth: AuthContext, templateId: string, valuesInput: unknown) {
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
      const signerBoxes = signers.map((_, k) => {
        const f = fields[k];
        if (!f) return undefined;
        return {
          pageNo: [f.page],
          boxes: [{ pages: String(f.page), x: f.x, y: f.y, width: f.width, height: f.height }],
        };
      });
      return { inspected, filename, templateId: t.id, signerBoxes };
    };
  }
}
