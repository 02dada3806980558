import { Module } from '@nestjs/common';
import { RestTemplatesController, V1TemplatesController } from './templates.controller';
import { TemplatesService } from './templates.service';

@Module({
  providers: [TemplatesService],
  controllers: [V1TemplatesController, RestTemplatesController],
  exports: [TemplatesService],
})
export class TemplatesModule {}
