/**
 * Labels of the field tools (issue 21) that neither the specification nor the contract's catalogue quotes. The kinds'
 * names (FIELD_KIND_LABELS), the patterns' messages (FIELD_PATTERNS) and every problem (FieldMessages) come from the
 * contract.
 */
export const FieldTexts = {
  paletteHeading: 'Add fields',
  paletteHint: 'Click a kind to add it to this page, or drag it onto the page.',
  /** The palette's group, named after whom the fields are for. */
  paletteFor: (name: string): string => `Fields for ${name}`,
  addKind: (kind: string): string => `Add ${kind}`,
  fieldsOnPage: 'Fields on this page',
  noFieldSelected: 'Select a field on the page to edit it.',
  panelHeading: 'Field',
  label: 'Label',
  required: 'Required',
  placeholder: 'Placeholder',
  maxLength: 'Max length',
  pattern: 'Format',
  patternNone: 'Any text',
  patternCustom: 'Own regular expression',
  patternExpression: 'Regular expression',
  patternMessage: 'Message when it does not match',
  options: 'Options (one per line)',
  editable: 'The signer may change it',
  value: 'Prefilled value',
  valueNone: 'None',
  checked: 'Checked',
  remove: 'Delete field',
  copyToEveryPage: 'Copy to every page',
  copied: (count: number): string =>
    count === 0 ? 'Every page already has this field.' : `Copied to ${count} more page${count === 1 ? '' : 's'}.`,
  keyboardHint: 'Arrows move the field (Shift: 10 points); Delete removes it.',
  resize: 'Resize',
  /** A field box's accessible name: its label and whose it is. */
  boxName: (label: string, owner: string): string => `${label} (${owner})`,
  role: 'Role',
  roleName: (n: number): string => `Signer ${n}`,
  templateFieldsHeading: 'Fields for signers',
  formFieldValue: (name: string): string => `Value of ${name}`,
  templateValuesHeading: 'Template values',
  templateValuesHint: "The template's form fields and prefilled fields: change them for this request.",
  formFieldsHeading: 'Form fields of the PDF',
  prefilledHeading: 'Prefilled fields',
} as const;
