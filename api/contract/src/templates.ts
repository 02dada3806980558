/**
 * A template's `template_annotation` (spec section 3): the form fields of the template's PDF, one entry per widget (a
 * field shown in several places, like a radio group, gives several entries with the same name), and the fields'
 * current values.
 */
import type { FieldDefinition } from './fields';
export const TEMPLATE_FIELD_TYPES = [
  'text-field',
  'checkbox-field',
  'radiobutton-field',
  'signature-field',
  'dropdown-field',
] as const;
export type TemplateFieldType = (typeof TEMPLATE_FIELD_TYPES)[number];

export interface TemplateFieldAnnotation {
  formFieldName: string;
  /**
   * The widget's rectangle in the PDF user space of its page, in points: [x, y, width, height] with (x, y) its
   * lower-left corner, y growing upward (as the PDF's /Rect, not the console's 840-point, top-left placement box).
   */
  bbox: [number, number, number, number];
  /** 0-based page index. */
  pageIndex: number;
  /**
   * `option`: for a radio button, the value the group takes when this button is selected; `options`: for a dropdown
   * (an AcroForm combo box, issue 21), the values it offers.
   */
  customData: { type: TemplateFieldType; option?: string; options?: string[] };
}

/** Values by field name: text for text fields, the selected option for radio groups ('' none), checked for checkboxes. */
export type FormFieldValues = Record<string, string | boolean>;

export interface TemplateAnnotation {
  annotations: TemplateFieldAnnotation[];
  formFieldValues: FormFieldValues;
  /**
   * Fields beyond the signature box placed for roles (issue 21): `signer` is the role, Signer 1…6, and role n goes to
   * the n-th recipient who needs to sign when a request is started from the template.
   */
  fields?: FieldDefinition[];
}

/**
 * A template as GET /api/templates (and /v1/templates) answers it. `template_link` is a same-origin signed URL of the
 * PDF (it expires: ask the API again rather than keeping it); `id` equals `template_id` (react-admin needs `id`).
 */
export interface TemplateView {
  id: string;
  template_id: string;
  template_name: string;
  template_link: string;
  template_annotation: TemplateAnnotation;
  filename: string;
  total_pages: number;
  field_count: number;
  /** Creation time, ISO 8601. */
  timestamp: string;
  /** Last change (name or fields), ISO 8601. */
  updated_at: string;
}

/**
 * GET /api/templates sorts by these (sort=["template_name","ASC"]); newest first by default. Names sort case aside;
 * `id` is `template_id`.
 */
export const TEMPLATE_SORT_FIELDS = [
  'template_name',
  'template_id',
  'id',
  'filename',
  'total_pages',
  'field_count',
  'timestamp',
  'updated_at',
] as const;
export type TemplateSortField = (typeof TEMPLATE_SORT_FIELDS)[number];

/**
 * GET /api/templates's filter: `q` the name contains it (case aside); `timestamp_gte` / `timestamp_lte` created at or
 * after / at or before an ISO 8601 time.
 */
export interface TemplateListFilter {
  q?: string;
  timestamp_gte?: string;
  timestamp_lte?: string;
}
export const TEMPLATE_FILTERS = [
  'q',
  'timestamp_gte',
  'timestamp_lte',
] as const satisfies readonly (keyof TemplateListFilter)[];
