import { Controller, Get, Header, Param, Put, Req, StreamableFile } from '@nestjs/common';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import {
  logoSchema,
  updateOrganisationSchema,
  type InputOf,
  type Organisation,
  type OrganisationUpdate,
} from '@esign/contract';
import type { Request } from 'express';
import { Auth, Public, type AuthContext } from '../../common/auth/auth-context';
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

  @ApiOperation({ summary: "Change the organisation's name, mode, tag or settings." })
  @Put(':orgId')
  update(
    @Auth() auth: AuthContext,
    @InputBody(updateOrganisationSchema) body: OrganisationUpdate,
  ): Promise<Organisation> {
    return this.organisations.update(auth.orgId, body);
  }

  @ApiOperation({ summary: 'Upload the logo: a PNG of at most 1 MB, multipart field "file".' })
  @Put(':orgId/logo')
  setLogo(
    @Auth() auth: AuthContext,
    @InputBody(logoSchema, { consumes: ['multipart/form-data'], files: { file: 'The logo: a PNG of at most 1 MB.' } })
    _fields: InputOf<typeof logoSchema>,
    @Req() req: Request,
  ): Promise<Organisation> {
    const files = (req.files as Express.Multer.File[] | undefined) ?? [];
    return this.organisations.setLogo(auth.orgId, files.find((f) => f.fieldname === 'file')?.buffer);
  }
}

@ApiTags('organisations')
@Controller('docs/logos')
export class LogosController {
  constructor(private readonly organisations: OrganisationsService) {}

  @Public()
  @ApiOperation({ summary: "The organisation's logo (the product's default when it has none)." })
  @Get(':orgId.png')
  @Header('Content-Type', 'image/png')
  @Header('Cache-Control', 'public, max-age=300')
  async logo(@Param('orgId') orgId: string): Promise<StreamableFile> {
    return new StreamableFile(await this.organisations.logo(orgId));
  }
}
