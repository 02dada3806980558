export * from './messages';
export * from './limits';
export * from './status';
export * from './routes';
export * from './consumers';
export * from './errors';
export * from './requests';
