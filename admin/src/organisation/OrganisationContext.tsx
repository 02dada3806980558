import { DEFAULT_TIME_ZONE, formatDateTime } from '@esign/contract';
import type { Organisation } from '@esign/contract';
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState } from 'react';
import type { ReactNode } from 'react';
import { orgId, v1 } from '../api';

export const organisationPath = (): string => `/api/organisations/${encodeURIComponent(orgId())}`;

interface OrganisationState {
  /** The signed-in user's organisation; null until it is read (or when it could not be). */
  organisation: Organisation | null;
  /** True once the read ended, either way. */
  settled: boolean;
  /** Why it could not be read, when it could not. */
  error: unknown;
  /** After a save: the server's answer becomes what every page sees. */
  setOrganisation: (organisation: Organisation) => void;
  /** Reads them again (the settings page, which edits them: another user may have changed them meanwhile). */
  refresh: () => Promise<void>;
  /** How many logos were uploaded in this session: the top bar reads the logo again when it changes. */
  logoVersion: number;
  logoChanged: () => void;
}

const OrganisationContext = createContext<OrganisationState>({
  organisation: null,
  settled: true,
  error: null,
  setOrganisation: () => undefined,
  refresh: async () => undefined,
  logoVersion: 0,
  logoChanged: () => undefined,
});

/**
 * The organisation and its settings, read once per signed-in session (GET /api/organisations/{orgId}) and shared by
 * every staff page: the time zone every time is written in, the signature types, the settings page's values.
 */
export const OrganisationProvider = ({ children }: { children: ReactNode }) => {
  const [organisation, setOrganisation] = useState<Organisation | null>(null);
  const [settled, setSettled] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [logoVersion, setLogoVersion] = useState(0);
  const logoChanged = useCallback(() => setLogoVersion((version) => version + 1), []);

  const live = useRef(true);
  const refresh = useCallback(async () => {
    try {
      const org = await v1<Organisation>(organisationPath());
      if (!live.current) return;
      setOrganisation(org);
      setError(null);
    } catch (failure) {
      if (live.current) setError(failure);
    } finally {
      if (live.current) setSettled(true);
    }
  }, []);

  useEffect(() => {
    live.current = true;
    void refresh();
    return () => {
      live.current = false;
    };
  }, [refresh]);

  const replace = useCallback((org: Organisation) => {
    setOrganisation(org);
    setError(null);
    setSettled(true);
  }, []);
  const value = useMemo(
    () => ({ organisation, settled, error, setOrganisation: replace, refresh, logoVersion, logoChanged }),
    [organisation, settled, error, replace, refresh, logoVersion, logoChanged],
  );
  return <OrganisationContext.Provider value={value}>{children}</OrganisationContext.Provider>;
};

export const useOrganisation = (): OrganisationState => useContext(OrganisationContext);

/**
 * Writes a time for a person: '25 Nov 2026, 12:58 am IST' in the organisation's time zone (issue 18, point 8). Until
 * the settings are read it writes nothing rather than a time in a zone that may be the wrong one; if they cannot be
 * read, the default zone (Asia/Kolkata).
 */
export function useFormatTime(): (value: Date | string | number | null | undefined) => string {
  const { organisation, settled } = useOrganisation();
  const zone = organisation?.settings.time_zone ?? (settled ? DEFAULT_TIME_ZONE : null);
  return useCallback(
    (value: Date | string | number | null | undefined) => (zone ? formatDateTime(value, zone) : ''),
    [zone],
  );
}
