import { useCallback } from 'react';
import { useTranslate } from 'react-admin';
import type { TextKey } from './catalogue';

/** The console's translate, with its keys checked by the compiler. */
export function useText(): (key: TextKey, values?: Record<string, unknown>) => string {
  const translate = useTranslate();
  return useCallback((key: TextKey, values?: Record<string, unknown>) => translate(key, values), [translate]);
}

/**
 * Shows a text that came as English (a form check's message from the contract, the API's answer) in the page's
 * language when the catalogue has it; any other text as it is (the i18nProvider's onMissingKey).
 */
export function useMessageText(): (text: string) => string {
  const translate = useTranslate();
  return useCallback((text: string) => translate(text), [translate]);
}
