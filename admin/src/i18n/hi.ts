import type { ConsoleCatalogue } from './catalogue';
import { adminHindi, requestHindi } from './hi/admin';
import { consoleHindi } from './hi/console';
import { esignHindi } from './hi/esign';
import { raHindi } from './hi/ra';

/** The console's catalogue in Hindi: the same keys as English (en.ts); the compiler and i18n.spec.ts check it. */
const catalogue: ConsoleCatalogue = {
  esign: esignHindi,
  admin: adminHindi,
  request: requestHindi,
  console: consoleHindi,
};

export const hi = { ...raHindi, ...catalogue };
