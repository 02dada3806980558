import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';

export class DevOutboxQueryDto {
  @ApiPropertyOptional({ description: 'Only messages to this e-mail address or phone number.' })
  @IsOptional()
  @IsString()
  @MaxLength(254)
  to?: string;
}
