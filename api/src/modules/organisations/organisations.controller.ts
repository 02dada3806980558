import { Body, Controller, Get, Header, Param, Put, Req, StreamableFile } from '@nestjs/common';
import { ApiConsumes, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { Organisation } from '@esign/contract';
import type { Request } from 'express';
import { Auth, Public, type AuthContext } from '../../common/auth/auth-context';
import { UpdateOrganisationDto } from './organisation.dto';
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
  update(@Auth() auth: AuthContext, @Body() dto: UpdateOrganisationDto): Promise<Organisation> {
    return this.organisations.update(auth.orgId, dto);
  }

  @ApiOperation({ summary: 'Upload the logo: a PNG of at most 1 MB, multipart field "file".' })
  @ApiConsumes('multipart/form-data')
  @Put(':orgId/logo')
  setLogo(@Auth() auth: AuthContext, @Req() req: Request): Promise<Organisation> {
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
