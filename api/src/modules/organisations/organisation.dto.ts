import { ApiPropertyOptional } from '@nestjs/swagger';
import {
  DEFAULT_TIME_ZONE,
  ORG_MODES,
  SIGNATURE_LEVELS,
  SIGNATURE_TYPES,
  isTimeZone,
  type SignatureLevel,
} from '@esign/contract';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  Validate,
  ValidateIf,
  ValidatorConstraint,
  type ValidatorConstraintInterface,
} from 'class-validator';

@ValidatorConstraint({ name: 'timeZone' })
class TimeZoneConstraint implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return isTimeZone(value);
  }
  defaultMessage(): string {
    return 'time_zone must be an IANA time zone such as Asia/Kolkata';
  }
}

const URL_PATTERN = /^(https?:\/\/)?[^\s/$.?#][^\s]*$/i;

/** PUT /api/organisations/{orgId}: every field optional; only those sent change. */
export class UpdateOrganisationDto {
  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name?: string;

  @ApiPropertyOptional({ enum: ORG_MODES })
  @IsOptional()
  @IsIn(ORG_MODES as unknown as string[])
  mode?: 'test' | 'live';

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(64)
  tag?: string;

  @ApiPropertyOptional({ isArray: true, enum: SIGNATURE_TYPES })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(SIGNATURE_TYPES.length)
  @IsIn(SIGNATURE_TYPES as unknown as string[], { each: true })
  signature_types?: string[];

  @ApiPropertyOptional() @IsOptional() @IsBoolean() face_capture?: boolean;
  @ApiPropertyOptional() @IsOptional() @IsBoolean() aadhaar_face_capture?: boolean;
  @ApiPropertyOptional() @IsOptional() @IsBoolean() esignature_face_capture?: boolean;
  @ApiPropertyOptional() @IsOptional() @IsBoolean() location_capture?: boolean;
  @ApiPropertyOptional() @IsOptional() @IsBoolean() allow_signing_from_india?: boolean;
  @ApiPropertyOptional() @IsOptional() @IsBoolean() live_video?: boolean;

  @ApiPropertyOptional({ minimum: 0, maximum: 1 })
  @IsOptional()
  @IsNumber()
  @Min(0)
  @Max(1)
  live_video_threshold?: number;

  @ApiPropertyOptional({ nullable: true })
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsString()
  @MaxLength(2048)
  @Matches(URL_PATTERN, { message: 'return_url must be a URL' })
  return_url?: string | null;

  @ApiPropertyOptional({ nullable: true })
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsString()
  @MaxLength(2048)
  @Matches(URL_PATTERN, { message: 'dsc_download_url must be a URL' })
  dsc_download_url?: string | null;

  @ApiPropertyOptional({ nullable: true, description: "The DSC panel's tutorial video" })
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsString()
  @MaxLength(2048)
  @Matches(URL_PATTERN, { message: 'dsc_tutorial_url must be a URL' })
  dsc_tutorial_url?: string | null;

  @ApiPropertyOptional({ example: DEFAULT_TIME_ZONE, description: 'IANA time zone for every time shown to people' })
  @IsOptional()
  @IsString()
  @Validate(TimeZoneConstraint)
  time_zone?: string;

  @ApiPropertyOptional({
    enum: SIGNATURE_LEVELS,
    description:
      'The PAdES level every signature reaches: B-B, B-T (timestamped), B-LT (with revocation data), B-LTA (archived)',
  })
  @IsOptional()
  @IsIn(SIGNATURE_LEVELS as unknown as string[], {
    message: `signature_level must be one of ${SIGNATURE_LEVELS.join(', ')}`,
  })
  signature_level?: SignatureLevel;

  @ApiPropertyOptional({ minimum: 1, maximum: 365 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(365)
  request_expiry_days?: number;
}
