// The layers of the API's modules (api/src/modules/*), top to bottom: a module may import only from the layers below
// its own, never from its own layer's other modules or from above (ARCHITECTURE.md, "Modules and the one-way rule";
// issue 20, "One way through the API"). The lint rule (eslint.config.mjs, import-x/no-restricted-paths) and
// scripts/module-graph.mjs are both built from this file, so the order is written once.
//
// The brief order of issue 20 is web → recipients → the signing methods (aadhaar, dsc) → requests → signing →
// documents, storage, audit, notifications, webhooks, jobs → common, config, database, contract. The other modules sit
// where what they import today puts them, and the last group is split where its modules import each other
// (notifications and webhooks use jobs; organisations keeps logos in storage).

/** Layers, top first. */
const layers = [
  // Entry points nobody imports: the apps' pages, the health checks (which look at redis and storage), and the
  // organisation's administration (issue 22: staff users, the seal certificate; it e-mails, so it sits above
  // notifications, and reaches signing for the seal). Issue 24's keepers of the data, each a job and its routes:
  // the watchdog (stuck requests), retention and a signer's data, and backups.
  ['web', 'health', 'administration', 'watchdog', 'backup', 'retention'],
  // The recipient's side, and the other public pages of a request: the recipient's own list, document verification.
  ['recipients', 'recipient-list', 'verification'],
  // The signing methods, and the identity checks (face, location) a recipient passes before signing.
  ['aadhaar', 'dsc', 'identity'],
  // One-time codes for signing, the DSC agent's login and the /list login (it names a party's row for signing codes).
  ['otp'],
  // A request's life: upload, placement, invitations, the rules (rules.ts), reminders, expiry, events.
  ['requests'],
  // Applying signatures, the seal, the PKI; and templates (documents a request starts from).
  ['signing', 'templates'],
  // Prometheus counters anyone above may count into; the gauges read jobs' and audit's rows (requests gives its own).
  ['metrics'],
  // PDF inspection and placement, the audit trail, messages and webhooks.
  ['documents', 'audit', 'notifications', 'webhooks'],
  // The jobs table and its runners; the application secrets and signed links (which use auth's secret helpers).
  ['jobs', 'secrets'],
  // Users, sessions, API keys (they read organisations).
  ['auth'],
  // Organisations (their logos are in storage).
  ['organisations'],
  // Document storage and the Redis connection.
  ['storage', 'redis'],
];

/** Below every module: anyone may import them, and they import no module (but for the exceptions below). */
const leaves = ['common', 'config', 'database', 'contract'];

/**
 * The imports that still run backwards, each named by the file that makes it and the module it reaches (paths from the
 * repository's root). Nothing else may: a new backward import fails `npm run lint`. Remove an entry when its import
 * is gone. See issue 20 ("One way through the API").
 */
const exceptions = [
  // The tenant guard (global, in common) checks the apikey with AuthService, and AuthContext names the key's kind.
  { file: 'api/src/common/auth/tenant.guard.ts', imports: ['auth'] },
  { file: 'api/src/common/auth/auth-context.ts', imports: ['auth'] },
  // The entity registry TypeORM is configured with: it lists every module's entities by design (composition root).
  {
    file: 'api/src/database/entities.ts',
    imports: [
      'aadhaar',
      'audit',
      'auth',
      'dsc',
      'jobs',
      'notifications',
      'organisations',
      'otp',
      'recipient-list',
      'recipients',
      'requests',
      'secrets',
      'signing',
      'templates',
      'watchdog',
      'webhooks',
    ],
  },
];

module.exports = { layers, leaves, exceptions };
