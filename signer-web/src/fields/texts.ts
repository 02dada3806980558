/**
 * The fields step's own labels (issue 21), which the contract has no text for: the guided bar, the counter and the
 * read-only marks. The kinds' names, the values' checks and every message come from @esign/contract (FieldMessages).
 */
export const FieldTexts = {
  panel: 'Your fields',
  nextField: 'Next field',
  previousField: 'Previous field',
  /** n: required fields still empty; m: all required fields of this signer. */
  requiredLeft: '{n} of {m} required fields left',
  filledWhenSigning: 'Filled when you sign',
  choose: 'Choose…',
  removeAttachment: 'Remove',
  /** The accessible name of a field's box on the page. */
  boxLabel: '{label} (field on page {page})',
} as const;

/** What a field's file input takes (the server checks the content again). */
export const ATTACHMENT_ACCEPT = '.pdf,.png,.jpg,.jpeg';
