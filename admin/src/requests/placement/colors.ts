/** One colour per signer (at most six recipients), the theme's purple first. */
const SIGNER_COLOURS = ['#5E35B1', '#00897B', '#D81B60', '#F57C00', '#1E88E5', '#6D4C41'] as const;

export const signerColour = (index: number): string => SIGNER_COLOURS[index % SIGNER_COLOURS.length];
