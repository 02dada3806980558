/**
 * Labels of the template screens that the specification does not quote (so the contract's Messages has none). Kept
 * in one place so they can move to the contract's catalogue; every quoted text comes from Messages.
 */
export const TemplateTexts = {
  fileNameColumn: 'File name',
  pagesColumn: 'Pages',
  fieldsColumn: 'Fields',
  createdColumn: 'Created',
  actionsColumn: 'Actions',
  fieldsPanelHeading: 'Form fields',
  noFieldsOnPage: 'No form fields on this page.',
  drawHint: 'Drag on the page to add a signature field.',
  removeField: 'Remove field',
  deleteTemplate: 'Delete template',
  editTemplate: 'Edit template',
  chooseFirst: 'Choose a PDF file to see its pages and form fields.',
  /** The name given to the n-th signature field drawn in the editor. */
  newSignatureField: (n: number): string => `Signature ${n}`,
} as const;
