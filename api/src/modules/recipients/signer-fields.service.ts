import { Injectable } from '@nestjs/common';
import {
  FieldLimits,
  FieldMessages,
  RecipientMessages,
  attachmentTypeOf,
  checkFieldValue,
  countsAsRequired,
  fieldLabel,
  fill,
  isSignerEditable,
  requiredLeft,
  type SignerFieldsView,
} from '@esign/contract';
import type { EntityManager } from 'typeorm';
import { AppError } from '../../common/app-error';
import { Clock } from '../../common/clock';
import type { UploadedFile } from '../../common/uploaded-file';
import { AuditService } from '../audit/audit.service';
import { fieldStateOf, sha256Hex, type PartyField } from '../requests/fields';
import { PartyEntity } from '../requests/party.entity';
import { refuseAction } from '../requests/rules';
import { DocumentStorage } from '../storage/document-storage';
import type { Loaded, SignerContext } from './signer-link.guard';
import { refused, SignerRows } from './signer-rows';

/**
 * The signer's own fields (issue 21): what they see, and the values they fill as they go (kept on the server, so a
 * reload or a second device resumes). A party fills only its own fields, only while it may act on the request (its
 * turn, accepted, OTP verified where asked) and never after it signed; every value is checked with the contract's
 * rule, all of a call's values before any is stored.
 */
@Injectable()
export class SignerFields {
  constructor(
    private readonly rows: SignerRows,
    private readonly clock: Clock,
    private readonly audit: AuditService,
    private readonly storage: DocumentStorage,
  ) {}

  /** GET /v1/fields/{orgId}/{refId}/{order}. */
  async view(ctx: SignerContext): Promise<SignerFieldsView> {
    const loaded = await this.rows.read(ctx);
    return viewOf(loaded.me, this.mayFill(loaded) === null);
  }

  /** POST /v1/fields/{orgId}/{refId}/{order} `{ values }`: every value checked, then all stored in one write. */
  async save(
    ctx: SignerContext,
    values: Record<string, string | number | boolean | null>,
    ip: string | null,
  ): Promise<SignerFieldsView> {
    return this.rows.inTransaction(ctx, async (loaded, manager) => {
      this.refuseFilling(loaded);
      const { me, parties } = loaded;
      const fields = me.fields ?? [];
      const changes: Array<{ field: PartyField; value: string | null }> = [];
      for (const [id, raw] of Object.entries(values)) {
        const field = fields.find((f) => f.id === id);
        if (!field) {
          const others = parties.some((p) => p.id !== me.id && (p.fields ?? []).some((f) => f.id === id));
          if (others) throw new AppError('FORBIDDEN', FieldMessages.notYours);
          throw new AppError('VALIDATION_FAILED', fill(FieldMessages.unknownField, { id }));
        }
        if (field.kind === 'attachment') {
          if (raw !== null && raw !== '')
            throw new AppError('VALIDATION_FAILED', fill(FieldMessages.attachmentRequired, {}));
          changes.push({ field, value: null });
          continue;
        }
        if (!isSignerEditable(field)) {
          const message =
            field.kind === 'date' || field.kind === 'signature'
              ? FieldMessages.filledBySigning
              : FieldMessages.notEditable;
          throw new AppError('VALIDATION_FAILED', fill(message, { label: fieldLabel(field) }));
        }
        const checked = checkFieldValue(field, raw);
        if (!checked.ok) throw new AppError('VALIDATION_FAILED', checked.message);
        changes.push({ field, value: checked.value });
      }
      if (changes.length) await this.apply(manager, me, changes, ip);
      return viewOf(me, true);
    });
  }

  /** POST …/{fieldId}/attachment: a PDF, PNG or JPEG of at most 5 MB, checked by its content. */
  async attach(ctx: SignerContext, fieldId: string, file: UploadedFile | undefined, ip: string | null) {
    if (!file || !file.bytes.length) throw new AppError('VALIDATION_FAILED', FieldMessages.attachmentRequired);
    if (file.bytes.length > FieldLimits.attachmentMaxBytes)
      throw new AppError('PAYLOAD_TOO_LARGE', FieldMessages.attachmentTooLarge);
    const type = attachmentTypeOf(file.bytes);
    if (!type) throw new AppError('UNSUPPORTED_MEDIA_TYPE', FieldMessages.attachmentType);
    const name = attachmentName(file.filename, type);
    // Checked before the file is stored, and again under the lock (a party that signed meanwhile stores nothing).
    this.attachmentField(await this.rows.read(ctx), fieldId);
    const stored = await this.storage.put(file.bytes);
    return this.rows.inTransaction(ctx, async (loaded, manager) => {
      const field = this.attachmentField(loaded, fieldId);
      await this.apply(manager, loaded.me, [{ field, value: name }], ip, {
        [field.id]: { key: stored.key, name, type, size: file.bytes.length, sha256: sha256Hex(file.bytes) },
      });
      return viewOf(loaded.me, true);
    });
  }

  /** DELETE …/{fieldId}/attachment. */
  async detach(ctx: SignerContext, fieldId: string, ip: string | null): Promise<SignerFieldsView> {
    return this.rows.inTransaction(ctx, async (loaded, manager) => {
      const field = this.attachmentField(loaded, fieldId);
      await this.apply(manager, loaded.me, [{ field, value: null }], ip);
      return viewOf(loaded.me, true);
    });
  }

  private attachmentField(loaded: Loaded, fieldId: string): PartyField {
    this.refuseFilling(loaded);
    const field = (loaded.me.fields ?? []).find((f) => f.id === fieldId);
    if (!field) {
      const others = loaded.parties.some(
        (p) => p.id !== loaded.me.id && (p.fields ?? []).some((f) => f.id === fieldId),
      );
      if (others) throw new AppError('FORBIDDEN', FieldMessages.notYours);
      throw new AppError('NOT_FOUND', fill(FieldMessages.unknownField, { id: fieldId }));
    }
    if (field.kind !== 'attachment')
      throw new AppError('VALIDATION_FAILED', fill(FieldMessages.attachmentNotAField, { label: fieldLabel(field) }));
    return field;
  }

  /** Why the party may not fill its fields now, or null. */
  private mayFill({ req, parties, me }: Loaded): string | null {
    if (me.status === 'completed' || me.signatureSubmittedAt) return FieldMessages.alreadySigned;
    const refusal = refuseAction(req, me, parties);
    if (refusal) return refusal;
    if (!me.acceptedAt) return RecipientMessages.acceptFirst;
    if (req.otpRequired && !me.otpVerifiedAt) return RecipientMessages.otpFirst;
    return null;
  }

  private refuseFilling(loaded: Loaded): void {
    const reason = this.mayFill(loaded);
    if (reason === FieldMessages.alreadySigned) throw new AppError('CONFLICT', reason);
    if (reason) throw refused(reason);
  }

  /** The values into the party's fields, one write, one audit event with each value's SHA-256. */
  private async apply(
    manager: EntityManager,
    me: PartyEntity,
    changes: Array<{ field: PartyField; value: string | null }>,
    ip: string | null,
    attachments: Record<string, NonNullable<PartyField['attachment']> & { sha256: string }> = {},
  ): Promise<void> {
    const now = this.clock.now();
    const byId = new Map(changes.map((c) => [c.field.id, c.value]));
    const hashes: Record<string, string | null> = {};
    me.fields = (me.fields ?? []).map((f) => {
      if (!byId.has(f.id)) return f;
      const value = byId.get(f.id) ?? null;
      const file = attachments[f.id];
      const sha256 = value === null ? null : file ? file.sha256 : sha256Hex(value);
      hashes[f.id] = sha256;
      return {
        ...f,
        value,
        sha256,
        filledAt: value === null ? null : now.toISOString(),
        filledBy: value === null ? null : 'signer',
        attachment:
          f.kind !== 'attachment' || value === null
            ? null
            : file
              ? { key: file.key, name: file.name, type: file.type, size: file.size }
              : f.attachment,
      };
    });
    me.updatedAt = now;
    await manager.update(PartyEntity, { id: me.id }, { fields: me.fields, updatedAt: now });
    await this.audit.recordParty(manager, me, 'party.fields_filled', ip, { sha256: hashes });
  }
}

/** The party's own fields and how far it is (required ones counted without date and signature). */
function viewOf(me: PartyEntity, editable: boolean): SignerFieldsView {
  const fields = me.fields ?? [];
  const values = Object.fromEntries(fields.map((f) => [f.id, f.value]));
  return {
    fields: fields.map(fieldStateOf),
    requiredLeft: requiredLeft(fields, values).length,
    requiredTotal: fields.filter(countsAsRequired).length,
    editable,
  };
}

/** The file's name as the signer gave it (no path, control characters or overlong text), with its type's extension. */
function attachmentName(filename: string | undefined, type: string): string {
  const ext = type === 'application/pdf' ? '.pdf' : type === 'image/png' ? '.png' : '.jpg';
  const last = (filename ?? '').split(/[\\/]/).pop() ?? '';
  const base = [...last]
    .filter((ch) => ch.charCodeAt(0) >= 0x20 && ch.charCodeAt(0) !== 0x7f)
    .join('')
    .trim();
  return (base || `attachment${ext}`).slice(0, FieldLimits.attachmentNameMaxLength);
}
