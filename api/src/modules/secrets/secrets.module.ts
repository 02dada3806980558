import { Global, Module } from '@nestjs/common';
import { AppSecretService } from './app-secret.service';
import { LinksService } from './links.service';

@Global()
@Module({ providers: [AppSecretService, LinksService], exports: [AppSecretService, LinksService] })
export class SecretsModule {}
