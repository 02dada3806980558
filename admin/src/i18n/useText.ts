import { AdminMessages, Messages, RequestMessages } from '@esign/contract';
import { useCallback } from 'react';
import { useTranslate } from 'react-admin';
import type { TextKey } from './catalogue';

/** The console's translate, with its keys checked by the compiler. */
export function useText(): (key: TextKey, values?: Record<string, unknown>) => string {
  const translate = useTranslate();
  return useCallback((key: TextKey, values?: Record<string, unknown>) => translate(key, values), [translate]);
}

/** English text of the contract → its key, for texts that reach a page as text (a check's message, an API answer). */
const KEY_OF_TEXT = new Map<string, TextKey>();
for (const [prefix, texts] of [
  ['esign', Messages],
  ['admin', AdminMessages],
  ['request', RequestMessages],
] as const)
  for (const [key, text] of Object.entries(texts))
    if (typeof text === 'string' && !KEY_OF_TEXT.has(text)) KEY_OF_TEXT.set(text, `${prefix}.${key}` as TextKey);

/**
 * Shows a text that came as English (a form check's message from the contract, the API's answer) in the page's
 * language when the catalogue has it; any other text as it is.
 */
export function useMessageText(): (text: string) => string {
  const t = useText();
  return useCallback(
    (text: string) => {
      const key = KEY_OF_TEXT.get(text);
      return key ? t(key) : text;
    },
    [t],
  );
}
