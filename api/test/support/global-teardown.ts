import type { MariaDbServer } from './mariadb-server';

export default async function globalTeardown(): Promise<void> {
  await (globalThis as { __mariadb?: MariaDbServer }).__mariadb?.stop();
}
