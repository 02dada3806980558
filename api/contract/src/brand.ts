/**
 * The product's colours (spec section 9: 'Theme main colour is a purple'). The console's MUI theme, the e-mails'
 * buttons and the sandbox ESP's pages use the same values.
 */
export const Brand = {
  /** The console's primary colour (MUI palette.primary.main). */
  primary: '#5E35B1',
  primaryLight: '#9162E4',
  primaryDark: '#4527A0',
  /** Text on the primary colour. */
  onPrimary: '#ffffff',
  /** A pale tint of the primary colour for highlighted panels. */
  tint: '#EDE7F6',
} as const;
