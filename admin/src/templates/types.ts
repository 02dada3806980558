import type { TemplateAnnotation } from '@esign/contract';

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
}

/** The columns a template table sorts by. */
export type TemplateSortField =
  'template_name' | 'template_id' | 'filename' | 'total_pages' | 'field_count' | 'timestamp';

export interface TemplateSort {
  field: TemplateSortField;
  order: 'ASC' | 'DESC';
}
