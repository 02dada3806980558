import { useState } from 'react';
import { useNotify, useRefresh } from 'react-admin';
import { failureText } from '../api';
import { useMessageText } from '../i18n/useText';

/**
 * A call a button makes beside the resources' CRUD (cancel, reseal, redeliver, rotate a secret, a password link, a
 * logo): busy while it runs, then a toast, what it did (in the page's language) or the API's refusal as it says it;
 * the page's data is read again after a success unless `refresh` is false. Answers the call's answer, or undefined
 * when it failed.
 */
export function useCall() {
  const notify = useNotify();
  const refreshPage = useRefresh();
  const messageText = useMessageText();
  const [busy, setBusy] = useState(false);
  const call = async <T>(
    work: () => Promise<T>,
    success: (answer: T) => string,
    { refresh = true }: { refresh?: boolean } = {},
  ): Promise<T | undefined> => {
    setBusy(true);
    try {
      const answer = await work();
      notify(messageText(success(answer)), { type: 'success' });
      if (refresh) refreshPage();
      return answer;
    } catch (error) {
      notify(messageText(failureText(error)), { type: 'error' });
      return undefined;
    } finally {
      setBusy(false);
    }
  };
  return { call, busy };
}
