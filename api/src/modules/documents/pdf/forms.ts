import {
  Messages,
  TEMPLATE_FIELD_TYPES,
  type FormFieldValues,
  type TemplateAnnotation,
  type TemplateFieldAnnotation,
  type TemplateFieldType,
} from '@esign/contract';
import {
  PdfArray,
  PdfBool,
  PdfDict,
  PdfName,
  PdfNumber,
  PdfRef,
  PdfString,
  type CheckboxField,
  type FormField,
  type PDF,
  type DropdownField,
  type RadioField,
  type TextField,
} from '@libpdf/core';
import { AppError } from '../../../common/app-error';
import type { PageGeometry } from './geometry';
import { countSignatures, loadPdf, lookup } from './load';
import { damaged, signedCannotChange, validation } from './messages';
import { pageIndex } from './pageRuns';

/**
 * AcroForm fields of templates: read them into the spec's `template_annotation`, fill them, and check annotation JSON
 * the console sends. Beside the spec's four types, dropdowns (combo boxes) are read and filled (issue 21); push buttons
 * and list boxes are left out of the annotation and cannot be filled through it.
 */

const MAX_ANNOTATIONS = 10_000;
const MAX_NAME_LENGTH = 1_000;

type WidgetAnnotation = ReturnType<FormField['getWidgets']>[number];

// @libpdf/core exports its field classes as types: a field's kind is its `type`.
const isText = (field: FormField): field is TextField => field.type === 'text';
const isCheckbox = (field: FormField): field is CheckboxField => field.type === 'checkbox';
const isRadio = (field: FormField): field is RadioField => field.type === 'radio';
const isDropdown = (field: FormField): field is DropdownField => field.type === 'dropdown';

function kindOf(field: FormField): TemplateFieldType | undefined {
  if (field.type === 'text') return 'text-field';
  if (field.type === 'checkbox') return 'checkbox-field';
  if (field.type === 'radio') return 'radiobutton-field';
  if (field.type === 'signature') return 'signature-field';
  if (field.type === 'dropdown') return 'dropdown-field';
  return undefined;
}

const round = (value: number) => Math.round(value * 1000) / 1000 + 0;

/** Every widget of every field (one entry each, so a radio group gives one per button) and the fields' values. */
export async function readFormFields(bytes: Uint8Array): Promise<TemplateAnnotation> {
  return asDamaged(() => readFields(bytes));
}

/** Whatever a malformed file makes the library throw (it parses objects when they are first used) is a 422. */
async function asDamaged<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    if (e instanceof AppError) throw e;
    throw damaged();
  }
}

async function readFields(bytes: Uint8Array): Promise<TemplateAnnotation> {
  const doc = await loadPdf(bytes);
  const pageOf = widgetPages(doc);
  let fields: FormField[];
  try {
    fields = doc.getForm()?.getFields() ?? [];
  } catch {
    throw damaged();
  }

  const annotations: TemplateFieldAnnotation[] = [];
  // Entries, then Object.fromEntries: a field may be named "__proto__".
  const values: [string, string | boolean][] = [];
  for (const field of fields) {
    const type = kindOf(field);
    if (!type) continue;
    const name = field.name;
    const widgets = field.getWidgets();
    const options = isRadio(field) ? safely(() => radioOptions(doc, field), []) : [];
    widgets.forEach((widget, i) => {
      const page = pageOf(widget);
      if (page === undefined) return; // on no page: nobody sees it
      const [x1, y1, x2, y2] = rectangleOf(doc, widget.dict);
      const bbox: [number, number, number, number] = [
        round(Math.min(x1, x2)),
        round(Math.min(y1, y2)),
        round(Math.abs(x2 - x1)),
        round(Math.abs(y2 - y1)),
      ];
      const customData: TemplateFieldAnnotation['customData'] = { type };
      if (type === 'radiobutton-field' && options.length === widgets.length) customData.option = options[i];
      if (isDropdown(field)) customData.options = safely(() => field.getOptions().map((o) => o.value), []);
      annotations.push({ formFieldName: name, bbox, pageIndex: page, customData });
    });
    if (isText(field)) values.push([name, safely(() => field.getValue(), '')]);
    else if (isCheckbox(field)) values.push([name, safely(() => isChecked(field), false)]);
    else if (isRadio(field)) values.push([name, safely(() => radioSelected(doc, field) ?? '', '')]);
    else if (isDropdown(field)) values.push([name, safely(() => field.getValue(), '')]);
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

/** A widget's /Rect as four numbers (zeros when it has none). */
function rectangleOf(doc: PDF, widget: PdfDict): [number, number, number, number] {
  const rect = lookup(doc, widget.get('Rect'));
  if (!(rect instanceof PdfArray) || rect.length < 4) return [0, 0, 0, 0];
  const number = (i: number) => {
    const item = lookup(doc, rect.at(i));
    return item instanceof PdfNumber && Number.isFinite(item.value) ? item.value : 0;
  };
  return [number(0), number(1), number(2), number(3)];
}

/** A checkbox is checked when its value is its (first widget's) on state. */
function isChecked(field: CheckboxField): boolean {
  const on = field.getWidgets()[0]?.getOnValue();
  return !!on && field.getValue() === on; // /V (inherited), a name; /Off without one
}

/** The on state of each of a button's widgets that has one, in order. */
const onValues = (field: FormField): string[] => field.getWidgets().flatMap((widget) => widget.getOnValue() ?? []);

/** The /Opt export values of a radio group (texts), when it has them. */
function exportValues(doc: PDF, field: RadioField): string[] | undefined {
  const opt = lookup(doc, field.acroField().get('Opt'));
  if (opt instanceof PdfString) return [opt.asString()];
  if (!(opt instanceof PdfArray)) return undefined;
  const texts: string[] = [];
  for (let i = 0; i < opt.length; i++) {
    const item = lookup(doc, opt.at(i));
    if (item instanceof PdfString) texts.push(item.asString());
  }
  return texts;
}

/** A radio group's options: its export values, else its buttons' on states. */
const radioOptions = (doc: PDF, field: RadioField): string[] => exportValues(doc, field) ?? onValues(field);

/** The selected option (its export value when the group has them), or undefined. */
function radioSelected(doc: PDF, field: RadioField): string | undefined {
  const value = field.getValue(); // /V (inherited), a name; null when /Off or without one
  if (value === null) return undefined;
  const exports = exportValues(doc, field);
  if (exports) {
    const index = onValues(field).indexOf(value);
    if (index >= 0 && index < exports.length) return exports[index];
  }
  return value;
}

/** Sets a button's value (a name) and turns each widget to it (its on state) or /Off. */
function setButton(field: FormField, value: string): void {
  field.acroField().set('V', PdfName.of(value));
  for (const widget of field.getWidgets()) widget.setAppearanceState(widget.getOnValue() === value ? value : 'Off');
}

/** A widget's 0-based page: the page whose /Annots lists it (what viewers show), else its /P. */
function widgetPages(doc: PDF): (widget: WidgetAnnotation) => number | undefined {
  const byAnnotation = new Map<PdfDict, number>();
  const byPageRef = new Map<PdfRef, number>();
  doc.getPages().forEach((page, i) => {
    byPageRef.set(page.ref, i);
    const annots = lookup(doc, page.dict.get('Annots'));
    if (!(annots instanceof PdfArray)) return;
    for (let k = 0; k < annots.length; k++) {
      const annot = lookup(doc, annots.at(k));
      if (annot instanceof PdfDict && !byAnnotation.has(annot)) byAnnotation.set(annot, i);
    }
  });
  return (widget) => {
    const listed = byAnnotation.get(widget.dict);
    if (listed !== undefined) return listed;
    const p = widget.dict.get('P');
    return p instanceof PdfRef ? byPageRef.get(p) : undefined;
  };
}

/** Characters the standard Helvetica can draw (WinAnsiEncoding): Latin-1 and the few punctuation marks beyond it. */
const WIN_ANSI_EXTRA = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ');
const helveticaCanDraw = (text: string): boolean =>
  [...text].every((c) => {
    const code = c.codePointAt(0) as number;
    return (code >= 0x20 && code <= 0x7e) || (code >= 0xa0 && code <= 0xff) || WIN_ANSI_EXTRA.has(c);
  });

/**
 * Fills text, checkbox and radio fields by name and saves the whole document (fields kept, not flattened). Text is
 * drawn into the fields' appearances (with the font their /DA names, Helvetica in practice); text Helvetica cannot
 * draw (e.g. Devanagari) is stored and the viewer is asked to draw it (/NeedAppearances). A signed document is
 * refused: rewriting it breaks its signatures.
 */
export async function fillFormFields(bytes: Uint8Array, values: FormFieldValues): Promise<Buffer> {
  return asDamaged(() => fillFields(bytes, values));
}

async function fillFields(bytes: Uint8Array, values: FormFieldValues): Promise<Buffer> {
  if (!isPlainObject(values)) throw validation(Messages.invalidRequest);
  const doc = await loadPdf(bytes);
  if (countSignatures(doc) > 0) throw signedCannotChange();
  const form = doc.getForm();
  const invalid = (name: string, reason: string) => validation(Messages.formFieldValueInvalid, { name, reason });

  let needAppearances = false;
  for (const [name, value] of Object.entries(values)) {
    const field = form?.getField(name);
    if (!field) throw validation(Messages.unknownFormField, { name });
    if (isText(field)) {
      if (typeof value !== 'string') throw invalid(name, 'it is a text field and takes text');
      const max = lookup(doc, field.acroField().get('MaxLen'));
      if (max instanceof PdfNumber && value.length > max.value)
        throw invalid(name, `it takes at most ${max.value} characters`);
      if (!setDrawn(field, value)) needAppearances = true;
    } else if (isCheckbox(field)) {
      if (typeof value !== 'boolean') throw invalid(name, 'it is a checkbox and takes true or false');
      setButton(field, value ? (field.getWidgets()[0]?.getOnValue() ?? 'Yes') : 'Off');
    } else if (isRadio(field)) {
      if (typeof value !== 'string') throw invalid(name, 'it is a radio group and takes one of its options');
      if (value === '') setButton(field, 'Off');
      else {
        const options = radioOptions(doc, field);
        if (!options.includes(value)) throw invalid(name, `it takes one of ${options.map((o) => `"${o}"`).join(', ')}`);
        const exports = exportValues(doc, field);
        setButton(field, (exports && onValues(field)[exports.indexOf(value)]) || value);
      }
    } else if (isDropdown(field)) {
      if (typeof value !== 'string') throw invalid(name, 'it is a dropdown and takes one of its options');
      const options = field.getOptions().map((o) => o.value);
      if (value !== '' && !field.isEditable && !options.includes(value))
        throw invalid(name, `it takes one of ${options.map((o) => `"${o}"`).join(', ')}`);
      if (!setDrawn(field, value)) needAppearances = true;
    } else {
      throw invalid(name, `it is a ${kindOf(field) ?? 'button or choice field'} and cannot be filled here`);
    }
  }

  if (needAppearances) form?.acroForm().getDict().set('NeedAppearances', PdfBool.TRUE);
  dropUsageRights(doc);
  // The whole file written anew (as the signatures to come expect a document that reads as written).
  doc.getCatalog().set('Type', PdfName.of('Catalog'));
  return Buffer.from(await doc.save({ useXRefStream: false }));
}

/**
 * A text or dropdown value set and drawn into the field's appearance (with the font its /DA names, Helvetica in
 * practice). Text Helvetica cannot draw (e.g. Devanagari), or a layout that cannot draw it (or a read-only field), is
 * stored as it is with the appearance removed: false, and the viewer is asked to draw it (/NeedAppearances).
 */
function setDrawn(field: TextField | DropdownField, value: string): boolean {
  if (helveticaCanDraw(value)) {
    try {
      field.setValue(value); // and draws its appearance
      return true;
    } catch {
      // Stored as it is, below.
    }
  }
  field.acroField().set('V', PdfString.fromString(value));
  for (const widget of field.getWidgets()) widget.dict.delete('AP');
  return false;
}

/**
 * Adobe Reader usage rights (/Perms /UR3) are a signature over the original file; after a rewrite Reader would
 * report them broken, so they are removed (the file reads as an ordinary form).
 */
function dropUsageRights(doc: PDF): void {
  const catalog = doc.getCatalog();
  const perms = lookup(doc, catalog.get('Perms'));
  if (!(perms instanceof PdfDict)) return;
  perms.delete('UR3');
  perms.delete('UR');
  if (perms.size === 0) catalog.delete('Perms');
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
    if (customData.options !== undefined) {
      const list = customData.options;
      if (type !== 'dropdown-field' || !Array.isArray(list) || !list.every((o) => typeof o === 'string'))
        throw fail(`${at}.customData.options is for dropdowns and must be a list of texts`);
      entry.customData.options = [...list];
      optionsOf.set(name, new Set(list));
    }
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
    if (type === 'dropdown-field' && value !== '' && options && !options.has(value as string))
      throw fail(`the dropdown "${name}" has no option "${String(value)}"`);
    checked.push([name, value as string | boolean]);
  }
  return { annotations, formFieldValues: Object.fromEntries(checked) };
}
