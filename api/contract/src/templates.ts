/**
 * A template's `template_annotation` (spec section 3): the form fields of the template's PDF, one entry per widget (a
 * field shown in several places, like a radio group, gives several entries with the same name), and the fields'
 * current values.
 */
export const TEMPLATE_FIELD_TYPES = ['text-field', 'checkbox-field', 'radiobutton-field', 'signature-field'] as const;
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
  /** `option`: for a radio button, the value the group takes when this button is selected. */
  customData: { type: TemplateFieldType; option?: string };
}

/** Values by field name: text for text fields, the selected option for radio groups ('' none), checked for checkboxes. */
export type FormFieldValues = Record<string, string | boolean>;

export interface TemplateAnnotation {
  annotations: TemplateFieldAnnotation[];
  formFieldValues: FormFieldValues;
}
