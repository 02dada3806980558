import type {
  FieldDefinition,
  FormFieldValues,
  TemplateAnnotation,
  TemplateFieldAnnotation,
  TemplateFieldType,
} from '@esign/contract';
import type { PDFDocumentProxy, PageViewport } from 'pdfjs-dist';

/** A field in the editor: the annotation entry plus a key that tells widgets of the same name apart. */
export interface EditorField extends TemplateFieldAnnotation {
  key: string;
  /** Drawn in the editor rather than read from the PDF. */
  drawn?: boolean;
}

/** A rectangle in the CSS pixels of a page as shown, top-left origin. */
export interface PixelBox {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** The part of pdf.js's annotation data the editor reads (getAnnotations() is typed `any`). */
interface WidgetData {
  subtype?: unknown;
  fieldType?: unknown;
  fieldName?: unknown;
  rect?: unknown;
  checkBox?: unknown;
  radioButton?: unknown;
  pushButton?: unknown;
  buttonValue?: unknown;
  combo?: unknown;
  options?: unknown;
}

const round = (value: number): number => Math.round(value * 1000) / 1000 + 0;

/** The template type of a widget: Tx text, Btn checkbox or radio (push buttons are left out), Sig signature, Ch combo dropdown. */
function typeOf(widget: WidgetData): TemplateFieldType | undefined {
  if (widget.fieldType === 'Tx') return 'text-field';
  if (widget.fieldType === 'Sig') return 'signature-field';
  if (widget.fieldType === 'Btn') {
    if (widget.checkBox) return 'checkbox-field';
    if (widget.radioButton) return 'radiobutton-field';
  }
  // A choice field shown as a combo box is a dropdown (issue 21); list boxes are left out, as the server does.
  if (widget.fieldType === 'Ch' && widget.combo === true) return 'dropdown-field';
  return undefined;
}

const isRect = (value: unknown): value is [number, number, number, number] =>
  Array.isArray(value) && value.length === 4 && value.every((v) => typeof v === 'number' && Number.isFinite(v));

/** A /Rect [x1, y1, x2, y2] (any corner order) as the annotation's bbox [x, y, width, height], lower-left origin. */
export function rectToBbox(rect: readonly number[]): [number, number, number, number] {
  const [x1, y1, x2, y2] = rect;
  return [round(Math.min(x1, x2)), round(Math.min(y1, y2)), round(Math.abs(x2 - x1)), round(Math.abs(y2 - y1))];
}

/**
 * The form fields of every page, read in the browser with pdf.js: one entry per widget (a radio group gives one per
 * button, with the button's value as `option`), in page order, as the server's own reading of the AcroForm.
 */
export async function readFormFields(doc: PDFDocumentProxy): Promise<EditorField[]> {
  const fields: EditorField[] = [];
  for (let pageIndex = 0; pageIndex < doc.numPages; pageIndex += 1) {
    const page = await doc.getPage(pageIndex + 1);
    const annotations = (await page.getAnnotations()) as WidgetData[];
    annotations.forEach((widget, i) => {
      if (widget.subtype !== 'Widget' || typeof widget.fieldName !== 'string' || !widget.fieldName.trim()) return;
      const type = typeOf(widget);
      if (!type || !isRect(widget.rect)) return;
      const customData: EditorField['customData'] = { type };
      if (type === 'radiobutton-field' && typeof widget.buttonValue === 'string')
        customData.option = widget.buttonValue;
      if (type === 'dropdown-field' && Array.isArray(widget.options))
        customData.options = (widget.options as { exportValue?: unknown }[])
          .map((o) => o.exportValue)
          .filter((v): v is string => typeof v === 'string');
      fields.push({
        key: `pdf-${pageIndex}-${i}`,
        formFieldName: widget.fieldName,
        bbox: rectToBbox(widget.rect),
        pageIndex,
        customData,
      });
    });
  }
  return fields;
}

/** A bbox (PDF user space of the page) in the pixels of the page as `viewport` shows it. */
export function bboxToPixels(bbox: readonly number[], viewport: PageViewport): PixelBox {
  const [x, y, width, height] = bbox;
  const [x1, y1, x2, y2] = viewport.convertToViewportRectangle([x, y, x + width, y + height]) as number[];
  return { left: Math.min(x1, x2), top: Math.min(y1, y2), width: Math.abs(x2 - x1), height: Math.abs(y2 - y1) };
}

/** A rectangle drawn in the pixels of the page as `viewport` shows it, as a bbox in the page's PDF user space. */
export function pixelsToBbox(box: PixelBox, viewport: PageViewport): [number, number, number, number] {
  const [x1, y1] = viewport.convertToPdfPoint(box.left, box.top) as number[];
  const [x2, y2] = viewport.convertToPdfPoint(box.left + box.width, box.top + box.height) as number[];
  return rectToBbox([x1, y1, x2, y2]);
}

/** A name for a new signature field that no field of the template has yet. */
export function freshFieldName(fields: readonly EditorField[], nameFor: (n: number) => string): string {
  const taken = new Set(fields.map((field) => field.formFieldName));
  let n = fields.filter((field) => field.drawn).length + 1;
  while (taken.has(nameFor(n))) n += 1;
  return nameFor(n);
}

/**
 * What Save sends as template_annotation: the entries without the editor's keys, the values set for the form fields
 * still there (none for a signature field), and the fields placed for roles (issue 21).
 */
export function toTemplateAnnotation(
  fields: readonly EditorField[],
  values: FormFieldValues = {},
  roleFields?: readonly FieldDefinition[],
): TemplateAnnotation {
  const fillable = new Set(
    fields.filter((field) => field.customData.type !== 'signature-field').map((field) => field.formFieldName),
  );
  return {
    annotations: fields.map(({ formFieldName, bbox, pageIndex, customData }) => ({
      formFieldName,
      bbox,
      pageIndex,
      customData,
    })),
    formFieldValues: Object.fromEntries(Object.entries(values).filter(([name]) => fillable.has(name))),
    ...(roleFields ? { fields: [...roleFields] } : {}),
  };
}
