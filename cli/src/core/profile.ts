import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/** What `esign-cli login` keeps: the API address, the key and who it is. Mode 0600 in a 0700 folder. */
export interface Profile {
  url: string;
  key: string;
  orgId: string;
  username: string | null;
  kind: 'session' | 'api-key';
  savedAt: string;
}

/** $ESIGN_CONFIG, else $XDG_CONFIG_HOME/esign-cli/profile.json, else ~/.config/esign-cli/profile.json. */
export function profilePath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.ESIGN_CONFIG) return env.ESIGN_CONFIG;
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return join(base, 'esign-cli', 'profile.json');
}

export function readProfile(env: NodeJS.ProcessEnv = process.env): Profile | null {
  const file = profilePath(env);
  if (!existsSync(file)) return null;
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as Profile;
    return typeof value?.url === 'string' && typeof value?.key === 'string' ? value : null;
  } catch {
    return null;
  }
}

export function writeProfile(profile: Profile, env: NodeJS.ProcessEnv = process.env): string {
  const file = profilePath(env);
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, `${JSON.stringify(profile, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600); // an existing file keeps its mode on write
  return file;
}

export function removeProfile(env: NodeJS.ProcessEnv = process.env): boolean {
  const file = profilePath(env);
  if (!existsSync(file)) return false;
  rmSync(file);
  return true;
}
