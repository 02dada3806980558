import { createHash } from 'node:crypto';
import {
  FieldMessages,
  assignFieldIds,
  checkFieldOnPage,
  checkFieldValue,
  fieldLabel,
  fieldListSchema,
  fill,
  initialsOf,
  requiredLeft,
  type AttachmentType,
  type FieldDefinition,
  type FieldInput,
  type FieldState,
  type FilledField,
} from '@esign/contract';
import { AppError } from '../../common/app-error';
import { parseInput } from '../../common/validation/input';
import type { PageGeometry, PlacedBox } from '../documents/pdf/geometry';
import { pageIndex } from '../documents/pdf/pageRuns';
import { shownPageSizes as shownPages, toPageBox } from '../documents/pdf/placement';
import type { FieldDrawing } from '../signing/pdf/engine';

/**
 * A field of a party as the request keeps it (issue 21): where the sender placed it and what it holds. Stored on the
 * party's row (`PartyEntity.fields`), so a party's values change with its row, under its lock, in one write.
 */
export interface PartyField extends FieldDefinition {
  value: string | null;
  /** ISO time the value was last set (by the sender's prefill, the signer, or signing for a date). */
  filledAt: string | null;
  /** SHA-256 (hex) of the value's UTF-8 text, or of an attachment's bytes. */
  sha256: string | null;
  filledBy: 'sender' | 'signer' | 'signing' | null;
  attachment: { key: string; name: string; type: AttachmentType; size: number } | null;
}

export const sha256Hex = (data: string | Uint8Array): string => createHash('sha256').update(data).digest('hex');

/** A field's box in its page's user space (points, y upward), as a stamp or a widget takes it. */
export function fieldPageBox(field: Pick<FieldDefinition, 'page' | 'box'>, geometry: PageGeometry[]): PlacedBox {
  const view = pageIndex(geometry)(field.page);
  const shown = shownPages(geometry)(field.page) ?? { width: 1, height: 1 };
  // toPageBox takes the console's 840-point-tall picture: scale the real points to it.
  const k = 840 / shown.height;
  const [x1, y1, x2, y2] = field.box;
  const box = toPageBox({ x1: x1 * k, y1: y1 * k, x2: x2 * k, y2: y2 * k }, view);
  return { pages: String(field.page), ...box };
}

/** Checks fields against the document and the party, and keeps them with their prefilled values. */
export function placeFields(
  inputs: FieldInput[],
  party: { order: number; name: string; observer: boolean },
  doc: { totalPages: number; geometry: PageGeometry[] },
  takenIds: Iterable<string>,
  now: Date,
): PartyField[] {
  if (party.observer && inputs.length) throw new AppError('VALIDATION_FAILED', FieldMessages.signerInvalid);
  for (const f of inputs)
    if (f.signer !== undefined && f.signer !== party.order)
      throw new AppError('VALIDATION_FAILED', FieldMessages.signerInvalid);
  const assigned = assignFieldIds(inputs, () => party.order, takenIds);
  if (!assigned.ok) throw new AppError('VALIDATION_FAILED', assigned.message);
  const pages = shownPages(doc.geometry);
  return assigned.fields.map((f) => {
    const off = checkFieldOnPage(f, pages, doc.totalPages);
    if (off) throw new AppError('VALIDATION_FAILED', off);
    let value = f.value ?? null;
    if (value === null && f.kind === 'name') value = party.name;
    if (value === null && f.kind === 'initials') value = initialsOf(party.name) || null;
    return {
      ...f,
      value,
      filledAt: value === null ? null : now.toISOString(),
      sha256: value === null ? null : sha256Hex(value),
      filledBy: value === null ? null : 'sender',
      attachment: null,
    };
  });
}

/** `fields` of a /v1/save entry (or of a template), parsed: a list of field inputs, or a 400 with the contract's message. */
export function parseFields(raw: unknown): FieldInput[] {
  return parseInput(fieldListSchema, raw);
}

/** Refuses two fields with one id in a request (after each party's fields were placed). */
export function checkUniqueIds(all: PartyField[][]): void {
  const seen = new Set<string>();
  for (const list of all)
    for (const f of list) {
      if (seen.has(f.id)) throw new AppError('VALIDATION_FAILED', fill(FieldMessages.idDuplicate, { id: f.id }));
      seen.add(f.id);
    }
  if (seen.size > 500) throw new AppError('VALIDATION_FAILED', FieldMessages.tooManyFields);
}

/** The definition alone (what the sender placed), as /v1/reference shows it. */
export function fieldDefinitionOf(f: PartyField): FieldDefinition {
  const { id, signer, kind, page, box, required, label, placeholder, maxLength, pattern, patternMessage } = f;
  return {
    id,
    signer,
    kind,
    page,
    box,
    required,
    label: label ?? null,
    placeholder: placeholder ?? null,
    maxLength: maxLength ?? null,
    pattern: pattern ?? null,
    patternMessage: patternMessage ?? null,
    options: f.options ?? null,
    editable: f.editable ?? null,
    value: f.filledBy === 'sender' ? f.value : null,
  };
}

/** A field with its value, as its signer and the request's page see it. */
export function fieldStateOf(f: PartyField): FieldState {
  return {
    ...fieldDefinitionOf(f),
    value: f.value,
    filledAt: f.filledAt,
    sha256: f.sha256,
    attachment: f.attachment ? { name: f.attachment.name, type: f.attachment.type, size: f.attachment.size } : null,
  };
}

/** The required fields still empty, and why a value no longer passes (checked again at signing). */
export function fieldsProblem(fields: PartyField[] | null | undefined): string | null {
  if (!fields?.length) return null;
  for (const f of fields) {
    if (f.value === null || f.kind === 'signature' || f.kind === 'date' || f.kind === 'attachment') continue;
    const checked = checkFieldValue(f, f.value);
    if (!checked.ok) return checked.message;
  }
  const left = requiredLeft(fields, Object.fromEntries(fields.map((f) => [f.id, f.value])));
  return left.length ? fill(FieldMessages.requiredMissing, { count: left.length }) : null;
}

/** What the party's revision draws: every field but the signature boxes (those go with the stamp). */
export function fieldDrawings(fields: PartyField[] | null | undefined): FieldDrawing[] {
  return (fields ?? [])
    .filter((f): f is PartyField & { kind: Exclude<PartyField['kind'], 'signature'> } => f.kind !== 'signature')
    .map((f) => ({
      id: f.id,
      kind: f.kind,
      label: fieldLabel(f),
      page: f.page,
      box: f.box,
      value: f.kind === 'attachment' ? (f.attachment?.name ?? null) : f.value,
      options: f.kind === 'radio' ? (f.options ?? null) : null,
    }));
}

/** Every filled field of a request, party by party, as webhooks, /v1/download and the certificate report them. */
export function filledFields(
  parties: Array<{ order: number; name: string; fields: PartyField[] | null }>,
): FilledField[] {
  return parties
    .slice()
    .sort((a, b) => a.order - b.order)
    .flatMap((p) =>
      (p.fields ?? [])
        .filter((f) => f.kind !== 'signature')
        .map((f) => ({
          id: f.id,
          signer: p.order,
          signerName: p.name,
          kind: f.kind,
          label: fieldLabel(f),
          value: f.value,
          sha256: f.sha256,
          filledAt: f.filledAt,
        })),
    );
}

/** A copy's fields (a duplicated request): the sender's placement and prefills, nothing a signer filled. */
export function draftFieldsOf(fields: PartyField[] | null): PartyField[] | null {
  if (!fields?.length) return null;
  return fields.map((f) =>
    f.filledBy === 'sender' || f.filledBy === null
      ? f
      : { ...f, value: null, filledAt: null, sha256: null, filledBy: null, attachment: null },
  );
}
