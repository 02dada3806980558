import type { ConsumerResponse, KeyAuthCredential, OrgMode } from '@esign/contract';

/** The staff session kept in local storage, under the names of the specification (section 3). */
export interface StaffSession {
  username: string;
  api_key: string;
  orgId: string;
  tag: string;
  status: OrgMode;
}

export const readSession = (): Partial<StaffSession> => ({
  username: localStorage.getItem('username') ?? undefined,
  api_key: localStorage.getItem('api_key') ?? undefined,
  orgId: localStorage.getItem('orgId') ?? undefined,
  tag: localStorage.getItem('tag') ?? undefined,
  status: (localStorage.getItem('status') as OrgMode | null) ?? undefined,
});

export const saveSession = (credential: KeyAuthCredential, consumer: ConsumerResponse): StaffSession => {
  const [orgId, tag, status] = consumer.tags;
  const session: StaffSession = { username: consumer.username, api_key: credential.key, orgId, tag, status };
  for (const [name, value] of Object.entries(session)) localStorage.setItem(name, value);
  return session;
};

/** Staff routes need a stored username (spec section 2) and the key that goes with it. */
export const hasSession = (): boolean => {
  const { username, api_key } = readSession();
  return Boolean(username && api_key);
};

/**
 * The console's language (issue 22), when it is not English. A preference of this browser, not session data: it
 * outlives sign-out, so the sign-in page speaks it too.
 */
export const LANGUAGE_KEY = 'console_language';

/**
 * Sign-out and the sign-in page clear everything the console stored, not only the session keys; only the language
 * chosen in the top bar stays.
 */
export const clearSession = (): void => {
  const language = localStorage.getItem(LANGUAGE_KEY);
  localStorage.clear();
  if (language) localStorage.setItem(LANGUAGE_KEY, language);
};

/** The organisation whose logo a layout shows: the staff user's, or the client variant's (/list). */
export const currentOrgId = (): string | null => localStorage.getItem('orgId') ?? localStorage.getItem('client_orgId');

/** The upload flow's values (spec section 3): a new request starts without them; submitting clears them. */
export const UPLOAD_FLOW_KEYS = [
  'refId',
  'upload_response',
  'file-url',
  'total-pages',
  'total_signatory',
  'total_signatory_array',
  'draggableHeight',
] as const;

export const clearUploadFlow = (): void => UPLOAD_FLOW_KEYS.forEach((key) => localStorage.removeItem(key));

/** Edit/Submit: a draft opens in Initiate Request under its Ref ID (kept in local storage as refId, spec section 3). */
export const startEditingDraft = (refId: number | string): void => {
  clearUploadFlow();
  localStorage.setItem('refId', String(refId));
};
