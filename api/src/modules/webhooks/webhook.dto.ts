import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { WEBHOOK_ALL_EVENTS, WEBHOOK_EVENTS } from '@esign/contract';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { MAX_WEBHOOK_URL } from './webhook-url';

const EVENT_CHOICES = [...WEBHOOK_EVENTS, WEBHOOK_ALL_EVENTS];
const EVENTS_MESSAGE = `events must each be one of: ${EVENT_CHOICES.join(', ')}`;

export class CreateWebhookDto {
  @ApiProperty({ example: 'https://example.com/esign-events', maxLength: MAX_WEBHOOK_URL })
  @IsString({ message: 'url must be a string' })
  @MaxLength(MAX_WEBHOOK_URL, { message: `url must be at most ${MAX_WEBHOOK_URL} characters` })
  url!: string;

  @ApiPropertyOptional({ isArray: true, enum: EVENT_CHOICES, default: [WEBHOOK_ALL_EVENTS] })
  @IsOptional()
  @IsArray({ message: 'events must be a list of event names' })
  @ArrayMinSize(1, { message: 'events must name at least one event (or "*")' })
  @ArrayMaxSize(EVENT_CHOICES.length)
  @IsIn(EVENT_CHOICES, { each: true, message: EVENTS_MESSAGE })
  events?: string[];
}

export class UpdateWebhookDto {
  @ApiPropertyOptional({ maxLength: MAX_WEBHOOK_URL })
  @IsOptional()
  @IsString({ message: 'url must be a string' })
  @MaxLength(MAX_WEBHOOK_URL, { message: `url must be at most ${MAX_WEBHOOK_URL} characters` })
  url?: string;

  @ApiPropertyOptional({ isArray: true, enum: EVENT_CHOICES })
  @IsOptional()
  @IsArray({ message: 'events must be a list of event names' })
  @ArrayMinSize(1, { message: 'events must name at least one event (or "*")' })
  @ArrayMaxSize(EVENT_CHOICES.length)
  @IsIn(EVENT_CHOICES, { each: true, message: EVENTS_MESSAGE })
  events?: string[];

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean({ message: 'active must be true or false' })
  active?: boolean;
}
