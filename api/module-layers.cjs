module.exports = {
  layers: [
    ['web', 'health'],
    ['recipients', 'recipient-list', 'verification'],
    ['aadhaar', 'dsc', 'identity'],
    ['requests'],
    ['signing', 'templates'],
    ['metrics'],
    ['documents', 'audit', 'notifications', 'webhooks'],
    ['jobs', 'secrets'],
    ['auth'],
    ['organisations'],
    ['storage', 'redis'],
  ],
  leaves: ['common', 'config', 'database', 'contract'],
  exceptions: [],
};
