import { defaultTheme } from 'react-admin';
import type { RaThemeOptions } from 'react-admin';
import { DEVANAGARI_FAMILY } from './i18n/fonts';

export const purple = '#5E35B1';

export const theme: RaThemeOptions = {
  ...defaultTheme,
  palette: {
    ...defaultTheme.palette,
    primary: { main: purple, light: '#9162E4', dark: '#4527A0', contrastText: '#fff' },
    secondary: { main: '#311B92', light: '#6746C3', dark: '#000063', contrastText: '#fff' },
    background: { default: '#F6F4FB' },
  },
  // MUI's fonts first, as before; Devanagari letters (the console in Hindi) from the shipped Noto face (i18n/fonts.ts).
  typography: {
    ...defaultTheme.typography,
    fontFamily: `"Roboto", "Helvetica", "Arial", "${DEVANAGARI_FAMILY}", sans-serif`,
  },
  sidebar: { width: 220, closedWidth: 55 },
  components: {
    ...defaultTheme.components,
    // A checkbox named by aria-label (react-admin's 'Select this row') is named on its input, the control a screen
    // reader announces; on MUI's wrapping span the attribute is not allowed and names nothing (axe-core, WCAG 4.1.2).
    MuiCheckbox: {
      defaultProps: {
        slotProps: {
          root: (ownerState: { 'aria-label'?: string }) =>
            ownerState['aria-label'] ? { 'aria-label': undefined } : {},
          input: (ownerState: { 'aria-label'?: string }) =>
            ownerState['aria-label'] ? { 'aria-label': ownerState['aria-label'] } : {},
        },
      },
    },
  },
};
