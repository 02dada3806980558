import { createHash } from 'node:crypto';
import type { AttachmentEmbedding } from './engine';
import type { Canvas } from './revision/canvas';

/**
 * Embeds the party's attachments (issue 21) as file attachments of the revision that carries their signature, each
 * under a name of its own in the EmbeddedFiles tree ('{field id}-{file name}'; a name an earlier revision already
 * holds, say the same field id of another party, gets ' (2)', ' (3)'… after the field id). Answers the names used, in
 * order. Refuses bytes whose SHA-256 is not the one recorded. Call before the signature field is placed: the signature then covers the files.
 */
export function embedAttachments(canvas: Canvas, attachments: AttachmentEmbedding[], at: Date): string[] {
  return attachments.map((attachment) => {
    // The certificate lists this SHA-256: a file that no longer matches it (storage damage) is never embedded.
    const actual = createHash('sha256').update(attachment.bytes).digest('hex');
    if (actual !== attachment.sha256.toLowerCase())
      throw new Error(`The attachment of field ${attachment.fieldId} does not match its recorded SHA-256.`);
    const file = attachment.name.replace(/[\p{Cc}/\\]+/gu, '_').trim() || 'attachment';
    let name = `${attachment.fieldId}-${file}`;
    for (let n = 2; canvas.hasAttachment(name); n++) name = `${attachment.fieldId} (${n})-${file}`;
    canvas.scratch.addAttachment(name, attachment.bytes, {
      mimeType: attachment.type,
      description: attachment.description,
      createdAt: at,
      modifiedAt: at,
    });
    return name;
  });
}
