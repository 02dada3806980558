import { Controller, Get, Header, Param, Put, Req, Res, StreamableFile } from '@nestjs/common';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import {
  logoSchema,
  updateOrganisationSchema,
  type InputOf,
  type Organisation,
  type OrganisationUpdate,
} from '@esign/contract';
import type { Request, Response } from 'express';
import { AdminOnly, Auth, Public, type AuthContext } from '../../common/auth/auth-context';
import { InputBody } from '../../common/validation/input';
import { OrganisationsService } from './organisations.service';

@ApiTags('organisations')
@ApiSecurity('apikey')
@Controller('api/organisations')
export class OrganisationsController {
  constructor(private readonly organisations: OrganisationsService) {}

  @ApiOperation({ summary: 'The organisation and its settings.' })
  @Get(':orgId')
  get(@Auth() auth: AuthContext): Promise<Organisation> {
    return this.organisations.get(auth.orgId);
  }

  @ApiOperation({
    summary: "Change the organisation's name, mode, tag or settings (administrators only; staff read them with GET).",
  })
  @AdminOnly()
  @Put(':orgId')
  update(
    @Auth() auth: AuthContext,
    @InputBody(updateOrganisationSchema) body: OrganisationUpdate,
  ): Promise<Organisation> {
    return this.organisations.update(auth.orgId, body);
  }

  @ApiOperation({
    summary:
      'Upload the logo: a PNG, JPEG or SVG (checked by its content; an SVG without scripts, event handlers or outside references) of at most 1 MB, multipart field "file".',
  })
  @AdminOnly()
  @Put(':orgId/logo')
  setLogo(
    @Auth() auth: AuthContext,
    @InputBody(logoSchema, {
      consumes: ['multipart/form-data'],
      files: { file: 'The logo: a PNG, JPEG or SVG image of at most 1 MB.' },
    })
    _fields: InputOf<typeof logoSchema>,
    @Req() req: Request,
  ): Promise<Organisation> {
    const files = (req.files as Express.Multer.File[] | undefined) ?? [];
    return this.organisations.setLogo(auth.orgId, files.find((f) => f.fieldname === 'file')?.buffer);
  }
}

/**
 * An SVG logo is served with a policy that lets it run and fetch nothing (inline styles and embedded images only),
 * whatever a check at upload might have missed; opened on its own it stays inert.
 */
const SVG_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'";

@ApiTags('organisations')
@Controller('docs/logos')
export class LogosController {
  constructor(private readonly organisations: OrganisationsService) {}

  @Public()
  @ApiOperation({
    summary:
      "The organisation's logo with its real type (PNG, JPEG or SVG; the product's default PNG when it has none).",
  })
  @Get(':orgId.png')
  @Header('Cache-Control', 'public, max-age=300')
  async logo(@Param('orgId') orgId: string, @Res({ passthrough: true }) res: Response): Promise<StreamableFile> {
    const { bytes, type } = await this.organisations.logo(orgId);
    res.setHeader('Content-Type', type);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    if (type === 'image/svg+xml') res.setHeader('Content-Security-Policy', SVG_POLICY);
    return new StreamableFile(bytes);
  }
}
