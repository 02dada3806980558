import { Global, Logger, Module } from '@nestjs/common';
import { join } from 'node:path';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { DocumentStorage } from './document-storage';
import { LocalDocumentStorage } from './local-document-storage';
import type * as S3Module from './s3-document-storage';

/** The one place that picks the storage adapter: an S3-compatible bucket when S3_BUCKET is set, else $DATA_DIR/files. */
@Global()
@Module({
  providers: [
    {
      provide: DocumentStorage,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig): DocumentStorage => {
        const log = new Logger('Storage');
        if (config.storage.kind === 's3') {
          const { endpoint, bucket, region, credentials, forcePathStyle } = config.storage;
          // Loaded only here: the AWS SDK holds about 20 MB that the embedded default never uses (issue 23, memory).
          // eslint-disable-next-line @typescript-eslint/no-require-imports
          const { S3DocumentStorage } = require('./s3-document-storage') as typeof S3Module;
          const storage = new S3DocumentStorage({ endpoint, bucket, region, credentials, forcePathStyle });
          log.log(`documents in the S3 ${storage.describe()}`);
          return storage;
        }
        const root = join(config.dataDir, 'files');
        log.log(`documents in the folder ${root}`);
        return new LocalDocumentStorage(root);
      },
    },
  ],
  exports: [DocumentStorage],
})
export class StorageModule {}
