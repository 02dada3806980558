import { Global, Module } from '@nestjs/common';
import { join } from 'node:path';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { DocumentStorage } from './document-storage';
import { LocalDocumentStorage } from './local-document-storage';

/** The one place that picks the storage adapter (S3 arrives with the scale-out step). */
@Global()
@Module({
  providers: [
    {
      provide: DocumentStorage,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => new LocalDocumentStorage(join(config.dataDir, 'files')),
    },
  ],
  exports: [DocumentStorage],
})
export class StorageModule {}
