import { Messages, StaffRoutes } from '@esign/contract';
import type { ConsumerResponse, KeyAuthResponse, UserRole, WhoAmIResponse } from '@esign/contract';
import type { AuthProvider } from 'react-admin';
import { HttpError, NetworkError, apiKeyHeader, basicAuth, requestJson } from './http';
import { clearSession, hasSession, readSession, saveSession } from './session';

const consumerPath = (username: string): string => `/consumers/${encodeURIComponent(username)}`;

/** What the sign-in page shows for a failed login (spec section 8). */
export const loginErrorMessage = (error: unknown): string => {
  if (error instanceof NetworkError) return Messages.connectionFailed;
  if (error instanceof HttpError) {
    const message = error.body?.message;
    if (message === Messages.invalidCredentials || message === Messages.cannotConsume) return Messages.userDoesNotExist;
    if (error.status === 429) return message ?? Messages.tooManyLoginFailures;
    return message ?? Messages.internalError;
  }
  return Messages.internalError;
};

/** Revokes a session key server-side; a key that is already dead or a network failure changes nothing here. */
const revokeKey = async (username: string, key: string): Promise<void> => {
  try {
    await requestJson<null>(`${consumerPath(username)}/key-auth`, { method: 'DELETE', headers: apiKeyHeader(key) });
  } catch {
    // best effort: the key also expires on its own after Limits.sessionIdleSeconds
  }
};

/** Revokes the stored key (if any) and clears local storage. */
export const endSession = async (): Promise<void> => {
  const { username, api_key } = readSession();
  clearSession();
  if (username && api_key) await revokeKey(username, api_key);
};

const signInRedirect = { redirectTo: StaffRoutes.signIn, message: false } as const;

export const authProvider: AuthProvider = {
  async login({ username, password }: { username: string; password: string }) {
    const authorization = { Authorization: basicAuth(username, password) };
    try {
      const keys = await requestJson<KeyAuthResponse>(`${consumerPath(username)}/key-auth`, { headers: authorization });
      const credential = keys?.data?.[0];
      if (!credential) throw new HttpError(500, null);
      try {
        const consumer = await requestJson<ConsumerResponse>(consumerPath(username), { headers: authorization });
        saveSession(credential, consumer);
      } catch (error) {
        await revokeKey(username, credential.key);
        throw error;
      }
    } catch (error) {
      throw new Error(loginErrorMessage(error), { cause: error });
    }
    return { redirectTo: StaffRoutes.dashboard };
  },

  async logout() {
    await endSession();
    return StaffRoutes.signIn;
  },

  async checkAuth() {
    if (!hasSession()) throw signInRedirect;
  },

  async checkError(error: { status?: number }) {
    if (error?.status === 401) {
      // The key is dead already (expired, revoked): forget it here, so the logout that follows sends no sign-out
      // call that could only answer 401 again.
      clearSession();
      throw signInRedirect;
    }
  },

  async getIdentity() {
    const { username } = readSession();
    if (!username) throw signInRedirect;
    return { id: username, fullName: username };
  },

  /**
   * The user's role (issue 22), from GET /api/whoami: 'admin' sees the administration, 'staff' does not (and the API
   * refuses staff anyway). Without a session there is no role.
   */
  async getPermissions(): Promise<UserRole | undefined> {
    const { api_key } = readSession();
    if (!api_key) return undefined;
    const who = await requestJson<WhoAmIResponse>('/api/whoami', { headers: apiKeyHeader(api_key) });
    return who.role;
  },
};
