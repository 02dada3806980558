import {
  CHOICE_KINDS,
  FIELD_KIND_LABELS,
  FIELD_PATTERNS,
  FieldLimits,
  checkFieldOnPage,
  fieldInputSchema,
  fieldLabel,
} from '@esign/contract';
import type { FieldDefinition, FieldKind, ShownPageSize } from '@esign/contract';

/**
 * The fields a sender places (issue 21), free of React and the DOM: default sizes, where a new field goes, moving and
 * resizing inside the page, copying to every page, and what /v1/save (or a template) is sent.
 *
 * A field's box is in points of the page as a viewer displays it (pdf.js's viewport at scale 1), from its top-left
 * corner: the contract's convention, unlike the signature box's 840-unit picture. The screen shows the page at some
 * CSS pixel size; one factor (pixels per point) converts both ways.
 */

/** A field as it is sent: the definition's parts that apply to its kind. */
export type FieldInputSent = Partial<FieldDefinition> & Pick<FieldDefinition, 'kind' | 'page' | 'box'>;

/** A field as the editors hold it: the contract's definition (ids given here, so they survive a reload). */
export type PlacedField = FieldDefinition;

/** [x1, y1, x2, y2] in displayed-page points. */
export type FieldBox = FieldDefinition['box'];

/** A sensible first size per kind, in points (about a line of 10-point text for the one-line kinds). */
export const DEFAULT_FIELD_SIZE: Record<FieldKind, { width: number; height: number }> = {
  signature: { width: 150, height: 50 },
  initials: { width: 60, height: 28 },
  name: { width: 160, height: 22 },
  date: { width: 100, height: 22 },
  text: { width: 160, height: 22 },
  number: { width: 100, height: 22 },
  checkbox: { width: 14, height: 14 },
  dropdown: { width: 140, height: 22 },
  radio: { width: 110, height: 54 },
  attachment: { width: 150, height: 28 },
};

/** The smallest a field may be resized to (twice the contract's minimum: a handle still fits). */
export const MIN_FIELD_POINTS = FieldLimits.minBoxPoints * 2;

/** The kinds whose value may be filled in before sending (name and initials come from the party). */
export const PREFILL_KINDS: readonly FieldKind[] = ['text', 'number', 'checkbox', 'dropdown', 'radio'];

/** The kinds the signer can be allowed to change (name: no unless set; initials: yes unless unset). */
export const EDITABLE_KINDS: readonly FieldKind[] = ['name', 'initials'];

export const PATTERN_NAMES = Object.keys(FIELD_PATTERNS) as (keyof typeof FIELD_PATTERNS)[];

export const isChoice = (kind: FieldKind): boolean => CHOICE_KINDS.includes(kind);

/** The field's name on screen: its label, else its kind's. */
export const shownLabel = (field: Pick<FieldDefinition, 'label' | 'kind'>): string => fieldLabel(field);

export const kindLabel = (kind: FieldKind): string => FIELD_KIND_LABELS[kind];

const round2 = (value: number): number => Math.round(value * 100) / 100 + 0;

const clamp = (value: number, min: number, max: number): number => Math.min(Math.max(value, min), Math.max(min, max));

/** The box kept inside the page: moved (never resized, unless larger than the page). */
export function clampFieldBox(box: FieldBox, page: ShownPageSize): FieldBox {
  const width = Math.min(box[2] - box[0], page.width);
  const height = Math.min(box[3] - box[1], page.height);
  const x = clamp(box[0], 0, page.width - width);
  const y = clamp(box[1], 0, page.height - height);
  return [round2(x), round2(y), round2(x + width), round2(y + height)];
}

/** The box moved by (dx, dy) points, kept inside the page. */
export const moveFieldBox = (box: FieldBox, dx: number, dy: number, page: ShownPageSize): FieldBox =>
  clampFieldBox([box[0] + dx, box[1] + dy, box[2] + dx, box[3] + dy], page);

/** The box with its bottom-right corner dragged by (dx, dy) points: at least MIN_FIELD_POINTS, inside the page. */
export function resizeFieldBox(box: FieldBox, dx: number, dy: number, page: ShownPageSize): FieldBox {
  const x2 = clamp(box[2] + dx, box[0] + MIN_FIELD_POINTS, page.width);
  const y2 = clamp(box[3] + dy, box[1] + MIN_FIELD_POINTS, page.height);
  return [box[0], box[1], round2(x2), round2(y2)];
}

/** An id no field of the request (every signer's) has: f1, f2… as the API would give. */
export function freshFieldId(taken: Iterable<string>): string {
  const used = new Set(taken);
  let n = 1;
  while (used.has(`f${n}`)) n += 1;
  return `f${n}`;
}

/**
 * A new field of `kind` for `signer` on `page`: centred on `at` (points) when dropped there, else near the top-left
 * corner, a step lower for each field already on the page so that none hides another.
 */
export function newField(
  kind: FieldKind,
  signer: number,
  page: number,
  size: ShownPageSize,
  existing: readonly PlacedField[],
  at?: { x: number; y: number },
): PlacedField {
  const { width, height } = DEFAULT_FIELD_SIZE[kind];
  const onPage = existing.filter((field) => field.page === page).length;
  const x = at ? at.x - width / 2 : 36 + (onPage % 4) * 24;
  const y = at ? at.y - height / 2 : 36 + (onPage % 12) * 32;
  const field: PlacedField = {
    id: freshFieldId(existing.map((f) => f.id)),
    signer,
    kind,
    page,
    box: clampFieldBox([x, y, x + width, y + height], size),
    required: kind !== 'checkbox' && kind !== 'signature' && kind !== 'date',
    label: null,
  };
  if (isChoice(kind)) field.options = ['Option 1', 'Option 2'];
  return field;
}

/**
 * Copies of `field` on every other page of the document (initials on every page in one click): the same box (kept
 * inside each page), each with its own id. A page where the signer already has such a field at that place gets none,
 * so a second click adds nothing.
 */
export function copiesToEveryPage(
  field: PlacedField,
  totalPages: number,
  sizeOf: (page: number) => ShownPageSize | null,
  all: readonly PlacedField[],
): PlacedField[] {
  const taken = all.map((f) => f.id);
  const copies: PlacedField[] = [];
  for (let page = 1; page <= totalPages; page += 1) {
    if (page === field.page) continue;
    const size = sizeOf(page);
    if (!size) continue;
    const box = clampFieldBox(field.box, size);
    const there = all.some(
      (f) => f.page === page && f.signer === field.signer && f.kind === field.kind && sameBox(f.box, box),
    );
    if (there) continue;
    const id = freshFieldId([...taken, ...copies.map((c) => c.id)]);
    copies.push({ ...field, options: field.options ? [...field.options] : field.options, id, page, box });
  }
  return copies;
}

const sameBox = (a: FieldBox, b: FieldBox): boolean => a.every((v, i) => Math.abs(v - b[i]) < 0.01);

/**
 * A field as /v1/save's entries (and a template's annotation) take it: options that mean nothing for its kind, and
 * empty ones, left out.
 */
export function toFieldInput(field: PlacedField): FieldInputSent {
  const out: FieldInputSent = {
    id: field.id,
    signer: field.signer,
    kind: field.kind,
    page: field.page,
    box: field.box.map(round2) as FieldBox,
    required: field.required,
  };
  const text = (value: string | null | undefined) => (value && value.trim() ? value.trim() : undefined);
  const set = <K extends keyof FieldInputSent>(key: K, value: FieldInputSent[K] | undefined) => {
    if (value !== undefined && value !== null) out[key] = value;
  };
  set('label', text(field.label));
  if (field.kind !== 'checkbox' && field.kind !== 'signature' && field.kind !== 'date')
    set('placeholder', text(field.placeholder));
  if (field.kind === 'text') {
    set('maxLength', field.maxLength ?? undefined);
    set('pattern', text(field.pattern));
    if (text(field.pattern)) set('patternMessage', text(field.patternMessage));
  }
  if (isChoice(field.kind)) set('options', field.options ?? []);
  if (EDITABLE_KINDS.includes(field.kind)) set('editable', field.editable ?? undefined);
  if (PREFILL_KINDS.includes(field.kind)) set('value', text(field.value ?? undefined));
  return out;
}

/** A stored field (GET /v1/reference, a template) as the editor holds it; null when it is not one. */
export function fromStored(value: unknown, signer?: number): PlacedField | null {
  const checked = fieldInputSchema.safeParse(value);
  if (!checked.success) return null;
  const field = checked.data;
  const id = field.id ?? (value as { id?: unknown }).id;
  const owner = field.signer ?? signer;
  if (typeof id !== 'string' || owner === undefined) return null;
  // The stored value as it was (the schema's check trims and normalises it; a checkbox's is 'true' or 'false').
  return { ...field, id, signer: owner } as PlacedField;
}

/**
 * What is wrong with a field, in the API's words, before it is sent: the contract's own check of a placed field
 * (fieldInputSchema) and whether it lies on its page (checkFieldOnPage). Empty when nothing is.
 */
export function fieldProblems(
  field: PlacedField,
  sizeOf: (page: number) => ShownPageSize | null,
  totalPages: number,
): string[] {
  const problems: string[] = [];
  const checked = fieldInputSchema.safeParse(toFieldInput(field));
  if (!checked.success) for (const issue of checked.error.issues) problems.push(issue.message);
  if (totalPages > 0) {
    const onPage = checkFieldOnPage(field, sizeOf, totalPages);
    if (onPage) problems.push(onPage);
  }
  return [...new Set(problems)];
}

/** The first field with a problem, and the problem; null when every field may be sent. */
export function firstProblem(
  fields: readonly PlacedField[],
  sizeOf: (page: number) => ShownPageSize | null,
  totalPages: number,
): { field: PlacedField; message: string } | null {
  for (const field of fields) {
    const [message] = fieldProblems(field, sizeOf, totalPages);
    if (message) return { field, message };
  }
  return null;
}

/** Which pattern preset a field uses: a name of FIELD_PATTERNS, '' none, 'custom' its own expression. */
export function patternChoice(pattern: string | null | undefined): string {
  if (!pattern) return '';
  return (PATTERN_NAMES as string[]).includes(pattern) ? pattern : 'custom';
}
