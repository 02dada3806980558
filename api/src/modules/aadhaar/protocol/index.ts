export * from './common';
export * from './esign-request';
export * from './esign-response';
export * from './verhoeff';
export * from './xml-dsig';
