import { useCallback, useLayoutEffect, useRef } from 'react';

/**
 * A callback whose identity never changes but which always calls the latest `fn`. The shared Dialog re-runs its focus
 * effect whenever its onClose changes, so the dialogs hand it one of these (a parent's inline arrow would pull the focus
 * back to the dialog box on every render).
 */
export function useStableCallback<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R {
  const latest = useRef(fn);
  useLayoutEffect(() => {
    latest.current = fn;
  });
  return useCallback((...args: A) => latest.current(...args), []);
}
