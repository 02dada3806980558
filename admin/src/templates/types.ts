import type { TemplateSortField } from '@esign/contract';

/** A template as GET /api/templates (and /v1/templates) answers it: the contract's shape. */
export type { TemplateSortField, TemplateView } from '@esign/contract';

/** A template table's sort (react-admin's, with the columns GET /api/templates sorts by). */
export interface TemplateSort {
  field: TemplateSortField;
  order: 'ASC' | 'DESC';
}
