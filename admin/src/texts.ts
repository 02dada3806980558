/**
 * The console's own texts: labels and messages that neither the specification nor the contract's catalogues quote.
 * Every text the specification quotes comes from the contract's Messages (and the administration's from AdminMessages).
 */
export const ConsoleTexts = {
  requestPageLink: 'Request details',
} as const;
