import type { ConsoleCatalogue } from './catalogue';
import { adminHindi, requestHindi } from './hi/admin';
import { retentionHindi, signersHindi, watchdogHindi } from './hi/reliability';
import { consoleHindi } from './hi/console';
import { esignHindi } from './hi/esign';
import { raHindi } from './hi/ra';

/** The console's catalogue in Hindi: the same keys as English (en.ts); the compiler and i18n.spec.ts check it. */
const catalogue: ConsoleCatalogue = {
  esign: esignHindi,
  admin: adminHindi,
  request: requestHindi,
  watchdog: watchdogHindi,
  retention: retentionHindi,
  signers: signersHindi,
  terms: {
    recipientTypes: { sign: 'हस्ताक्षर करना है', copy: 'प्रति प्राप्त करता है' },
    reminders: { '12': '12 घंटे', '24': '1 दिन', '48': '2 दिन' },
    fieldKinds: {
      signature: 'हस्ताक्षर',
      initials: 'आद्याक्षर',
      name: 'नाम',
      date: 'हस्ताक्षर की तारीख',
      text: 'पाठ',
      number: 'संख्या',
      checkbox: 'चेकबॉक्स',
      dropdown: 'ड्रॉपडाउन',
      radio: 'रेडियो समूह',
      attachment: 'संलग्नक',
    },
  },
  console: consoleHindi,
};

export const hi = { ...raHindi, ...catalogue };
