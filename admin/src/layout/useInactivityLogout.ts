import { Limits } from '@esign/contract';
import { useEffect } from 'react';
import { useLogout } from 'react-admin';

const ACTIVITY_EVENTS = ['mousemove', 'keydown', 'scroll', 'touchstart', 'click'] as const;

const INACTIVITY_MS = Limits.inactivityLogoutSeconds * 1000;

/**
 * Signs the staff user out after Limits.inactivityLogoutSeconds without mouse, key, scroll or touch activity (spec
 * section 2). Activity only records a time stamp; the single timer re-arms itself for the remaining time, so a stream
 * of mousemove events costs nothing.
 */
export const useInactivityLogout = (): void => {
  const logout = useLogout();

  useEffect(() => {
    const timeoutMs = INACTIVITY_MS;
    let lastActivity = Date.now();
    let timer: ReturnType<typeof setTimeout> | undefined;

    const arm = (delay: number) => {
      timer = setTimeout(() => {
        const idle = Date.now() - lastActivity;
        if (idle >= timeoutMs) void logout({}, undefined, false);
        else arm(timeoutMs - idle);
      }, delay);
    };
    const onActivity = () => {
      lastActivity = Date.now();
    };

    ACTIVITY_EVENTS.forEach((name) => window.addEventListener(name, onActivity, { capture: true, passive: true }));
    arm(timeoutMs);
    return () => {
      clearTimeout(timer);
      ACTIVITY_EVENTS.forEach((name) => window.removeEventListener(name, onActivity, { capture: true }));
    };
  }, [logout]);
};
