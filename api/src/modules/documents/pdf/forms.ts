import {
  Messages,
  TEMPLATE_FIELD_TYPES,
  type FormFieldValues,
  type TemplateAnnotation,
  type TemplateFieldAnnotation,
  type TemplateFieldType,
} from '@esign/contract';
import {
  PDFArray,
  PDFBool,
  PDFCheckBox,
  PDFDict,
  PDFName,
  PDFRadioGroup,
  PDFRef,
  PDFSignature,
  PDFTextField,
  StandardFonts,
  type PDFDocument,
  type PDFField,
  type PDFFont,
  type PDFWidgetAnnotation,
} from 'pdf-lib';
import { AppError } from '../../../common/app-error';
import type { PageGeometry } from './geometry';
import { countSignatures, loadPdf } from './load';
import { damaged, signedCannotChange, validation } from './messages';
import { pageIndex } from './pageRuns';

/**
 * AcroForm fields of templates: read them into the spec's `template_annotation`, fill them, and check annotation JSON
 * the console sends. Field kinds outside the spec's four types (push buttons, dropdowns, list boxes) are left out of
 * the annotation and cannot be filled through it.
 */

const MAX_ANNOTATIONS = 10_000;
const MAX_NAME_LENGTH = 1_000;

function kindOf(field: PDFField): TemplateFieldType | undefined {
  if (field instanceof PDFTextField) return 'text-field';
  if (field instanceof PDFCheckBox) return 'checkbox-field';
  if (field instanceof PDFRadioGroup) return 'radiobutton-field';
  if (field instanceof PDFSignature) return 'signature-field';
  return undefined;
}

const round = (value: number) => Math.round(value * 1000) / 1000 + 0;

/** Every widget of every field (one entry each, so a radio group gives one per button) and the fields' values. */
export async function readFormFields(bytes: Uint8Array): Promise<TemplateAnnotation> {
  const doc = await loadPdf(bytes);
  const pageOf = widgetPages(doc);
  let fields: PDFField[];
  try {
    fields = doc.getForm().getFields();
  } catch {
    throw damaged();
  }

  const annotations: TemplateFieldAnnotation[] = [];
  // Entries, then Object.fromEntries: a field may be named "__proto__".
  const values: [string, string | boolean][] = [];
  for (const field of fields) {
    const type = kindOf(field);
    if (!type) continue;
    const name = field.getName();
    const widgets = field.acroField.getWidgets();
    const options = field instanceof PDFRadioGroup ? safely(() => field.getOptions(), []) : [];
    widgets.forEach((widget, i) => {
      const page = pageOf(widget);
      if (page === undefined) return; // on no page: nobody sees it
      const r = widget.getRectangle();
      const bbox: [number, number, number, number] = [
        round(Math.min(r.x, r.x + r.width)),
        round(Math.min(r.y, r.y + r.height)),
        round(Math.abs(r.width)),
        round(Math.abs(r.height)),
      ];
      const customData: TemplateFieldAnnotation['customData'] = { type };
      if (type === 'radiobutton-field' && options.length === widgets.length) customData.option = options[i];
      annotations.push({ formFieldName: name, bbox, pageIndex: page, customData });
    });
    if (field instanceof PDFTextField) values.push([name, safely(() => field.getText() ?? '', '')]);
    else if (field instanceof PDFCheckBox) values.push([name, safely(() => field.isChecked(), false)]);
    else if (field instanceof PDFRadioGroup) values.push([name, safely(() => field.getSelected() ?? '', '')]);
  }
  return { annotations, formFieldValues: Object.fromEntries(values) };
}

function safely<T>(read: () => T, fallback: T): T {
  try {
    return read();
  } catch {
    return fallback;
  }
}

/** A widget's 0-based page: the page whose /Annots lists it (what viewers show), else its /P. */
function widgetPages(doc: PDFDocument): (widget: PDFWidgetAnnotation) => number | undefined {
  const byAnnotation = new Map<PDFDict, number>();
  const byPageRef = new Map<PDFRef, number>();
  doc.getPages().forEach((page, i) => {
    byPageRef.set(page.ref, i);
    const annots = doc.context.lookup(page.node.get(PDFName.of('Annots')));
    if (!(annots instanceof PDFArray)) return;
    for (let k = 0; k < annots.size(); k++) {
      const annot = doc.context.lookup(annots.get(k));
      if (annot instanceof PDFDict && !byAnnotation.has(annot)) byAnnotation.set(annot, i);
    }
  });
  return (widget) => {
    const listed = byAnnotation.get(widget.dict);
    if (listed !== undefined) return listed;
    const p = widget.P();
    return p instanceof PDFRef ? byPageRef.get(p) : undefined;
  };
}

/**
 * Fills text, checkbox and radio fields by name and saves the whole document (fields kept, not flattened). Text is
 * drawn into the fields' appearances with Helvetica; text Helvetica cannot draw (e.g. Devanagari) is stored and the
 * viewer is asked to draw it (/NeedAppearances). A signed document is refused: rewriting it breaks its signatures.
 */
export async function fillFormFields(bytes: Uint8Array, values: FormFieldValues): Promise<Buffer> {
  if (!isPlainObject(values)) throw validation(Messages.invalidRequest);
  const doc = await loadPdf(bytes);
  if (countSignatures(doc) > 0) throw signedCannotChange();
  const form = doc.getForm();
  const invalid = (name: string, reason: string) => validation(Messages.formFieldValueInvalid, { name, reason });

  let font: PDFFont | undefined;
  let needAppearances = false;
  for (const [name, value] of Object.entries(values)) {
    const field = form.getFieldMaybe(name);
    if (!field) throw validation(Messages.unknownFormField, { name });
    if (field instanceof PDFTextField) {
      if (typeof value !== 'string') throw invalid(name, 'it is a text field and takes text');
      const max = field.getMaxLength();
      if (max !== undefined && value.length > max) throw invalid(name, `it takes at most ${max} characters`);
      field.setText(value);
      font ??= await doc.embedFont(StandardFonts.Helvetica);
      try {
        field.updateAppearances(font);
      } catch {
        // Helvetica cannot draw this text (or the field's layout cannot): let the viewer draw it.
        for (const widget of field.acroField.getWidgets()) widget.dict.delete(PDFName.of('AP'));
        needAppearances = true;
      }
    } else if (field instanceof PDFCheckBox) {
      if (typeof value !== 'boolean') throw invalid(name, 'it is a checkbox and takes true or false');
      if (value) field.check();
      else field.uncheck();
    } else if (field instanceof PDFRadioGroup) {
      if (typeof value !== 'string') throw invalid(name, 'it is a radio group and takes one of its options');
      if (value === '') field.clear();
      else {
        const options = field.getOptions();
        if (!options.includes(value)) throw invalid(name, `it takes one of ${options.map((o) => `"${o}"`).join(', ')}`);
        field.select(value);
      }
    } else {
      throw invalid(name, `it is a ${kindOf(field) ?? 'button or choice field'} and cannot be filled here`);
    }
  }

  if (needAppearances) form.acroForm.dict.set(PDFName.of('NeedAppearances'), PDFBool.True);
  dropUsageRights(doc);
  try {
    return Buffer.from(
      await doc.save({ useObjectStreams: false, updateFieldAppearances: false, objectsPerTick: Infinity }),
    );
  } catch (e) {
    if (e instanceof AppError) throw e;
    throw damaged();
  }
}

/**
 * Adobe Reader usage rights (/Perms /UR3) are a signature over the original file; after a rewrite Reader would
 * report them broken, so they are removed (the file reads as an ordinary form).
 */
function dropUsageRights(doc: PDFDocument): void {
  const perms = doc.context.lookup(doc.catalog.get(PDFName.of('Perms')));
  if (!(perms instanceof PDFDict)) return;
  perms.delete(PDFName.of('UR3'));
  perms.delete(PDFName.of('UR'));
  if (perms.keys().length === 0) doc.catalog.delete(PDFName.of('Perms'));
}

export interface SignatureFieldBox {
  formFieldName: string;
  /** 1-based. */
  page: number;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** One box per signature field, in the annotation's order, plus `pageNo`: the pages they are on (ascending). */
export type SignatureFieldBoxes = SignatureFieldBox[] & { pageNo: number[] };

/**
 * The template's signature fields as signature places, in the annotation's order (requests/template-uploads gives the
 * k-th to the k-th signer): boxes in user space, moved inside the page's visible (crop) box when they stick out of it.
 * A page the geometry lacks is a 4xx naming it.
 */
export function signatureBoxesFromAnnotation(
  annotation: TemplateAnnotation,
  geometry: PageGeometry[],
): SignatureFieldBoxes {
  const viewOf = pageIndex(geometry);
  const boxes: SignatureFieldBox[] = [];
  for (const item of annotation.annotations) {
    if (item.customData.type !== 'signature-field') continue;
    const page = item.pageIndex + 1;
    const [cx, cy, cw, ch] = viewOf(page).cropBox;
    const [x, y, w, h] = item.bbox;
    const width = Math.min(w, cw);
    const height = Math.min(h, ch);
    boxes.push({
      formFieldName: item.formFieldName,
      page,
      x: round(Math.min(Math.max(x, cx), cx + cw - width)),
      y: round(Math.min(Math.max(y, cy), cy + ch - height)),
      width: round(width),
      height: round(height),
    });
  }
  return Object.assign(boxes, { pageNo: [...new Set(boxes.map((b) => b.page))].sort((a, b) => a - b) });
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Checks annotation JSON from the console against the template's page count and returns a clean copy. Accepts
 * `{ annotations, formFieldValues }` or a bare list of annotations (no values).
 */
export function validateAnnotation(json: unknown, totalPages: number): TemplateAnnotation {
  const fail = (reason: string) => validation(Messages.invalidTemplateAnnotation, { reason });
  let list: unknown;
  let values: unknown = {};
  if (Array.isArray(json)) list = json;
  else if (isPlainObject(json)) {
    list = json.annotations;
    values = json.formFieldValues ?? {};
  } else throw fail('it must be an object with annotations and formFieldValues');
  if (!Array.isArray(list)) throw fail('annotations must be a list');
  if (list.length > MAX_ANNOTATIONS) throw fail(`there can be at most ${MAX_ANNOTATIONS} annotations`);

  const annotations: TemplateFieldAnnotation[] = [];
  const typeOf = new Map<string, TemplateFieldType>();
  const optionsOf = new Map<string, Set<string>>();
  list.forEach((item: unknown, i) => {
    const at = `annotations[${i}]`;
    if (!isPlainObject(item)) throw fail(`${at} must be an object`);
    const { formFieldName: name, bbox, pageIndex: index, customData } = item;
    if (typeof name !== 'string' || name.trim() === '' || name.length > MAX_NAME_LENGTH)
      throw fail(`${at}.formFieldName must be a non-empty text of at most ${MAX_NAME_LENGTH} characters`);
    if (
      !Array.isArray(bbox) ||
      bbox.length !== 4 ||
      !bbox.every((v) => typeof v === 'number' && Number.isFinite(v)) ||
      bbox[2] < 0 ||
      bbox[3] < 0
    )
      throw fail(`${at}.bbox must be [x, y, width, height]: four numbers, width and height not negative`);
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= totalPages)
      throw fail(`${at}.pageIndex must be a page index from 0 to ${totalPages - 1}`);
    if (!isPlainObject(customData) || !TEMPLATE_FIELD_TYPES.includes(customData.type as TemplateFieldType))
      throw fail(`${at}.customData.type must be one of ${TEMPLATE_FIELD_TYPES.join(', ')}`);
    const type = customData.type as TemplateFieldType;
    if (typeOf.has(name) && typeOf.get(name) !== type) throw fail(`the field "${name}" has two different types`);
    typeOf.set(name, type);
    const entry: TemplateFieldAnnotation = {
      formFieldName: name,
      bbox: [bbox[0], bbox[1], bbox[2], bbox[3]],
      pageIndex: index,
      customData: { type },
    };
    if (customData.option !== undefined) {
      if (type !== 'radiobutton-field' || typeof customData.option !== 'string')
        throw fail(`${at}.customData.option is for radio buttons and must be a text`);
      entry.customData.option = customData.option;
      optionsOf.set(name, (optionsOf.get(name) ?? new Set()).add(customData.option));
    }
    annotations.push(entry);
  });

  if (!isPlainObject(values)) throw fail('formFieldValues must be an object of field names to values');
  const checked: [string, string | boolean][] = [];
  for (const [name, value] of Object.entries(values)) {
    const type = typeOf.get(name);
    if (!type) throw fail(`formFieldValues names "${name}", which is not one of the annotations' fields`);
    if (type === 'signature-field') throw fail(`the signature field "${name}" cannot have a value`);
    if (type === 'checkbox-field' && typeof value !== 'boolean')
      throw fail(`the checkbox "${name}" takes true or false`);
    if (type !== 'checkbox-field' && typeof value !== 'string') throw fail(`the field "${name}" takes text`);
    const options = optionsOf.get(name);
    if (type === 'radiobutton-field' && value !== '' && options && !options.has(value as string))
      throw fail(`the radio group "${name}" has no option "${String(value)}"`);
    checked.push([name, value as string | boolean]);
  }
  return { annotations, formFieldValues: Object.fromEntries(checked) };
}
