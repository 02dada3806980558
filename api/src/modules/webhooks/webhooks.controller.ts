import { Controller, Delete, Get, HttpCode, Post, Put, Res } from '@nestjs/common';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import {
  createWebhookSchema,
  deliveryIdParamSchema,
  deliveryListQuerySchema,
  noBodySchema,
  webhookListQuerySchema,
  updateWebhookSchema,
  webhookIdParamSchema,
  type CreatedWebhook,
  type CreateWebhookInput,
  type DeliveryListQuery,
  type InputOf,
  type WebhookListQuery,
  type UpdateWebhookInput,
  type Webhook,
  type WebhookDelivery,
} from '@esign/contract';
import type { Response } from 'express';
import { AdminOnly, Auth, type AuthContext } from '../../common/auth/auth-context';
import { sendPage } from '../../common/rest-query';
import { InputBody, InputParam, InputQuery } from '../../common/validation/input';
import { WebhooksService } from './webhooks.service';

/** The organisation's webhooks (ra-data-simple-rest resource `webhooks`); administrators only. */
@ApiTags('webhooks')
@ApiSecurity('apikey')
@AdminOnly()
@Controller('api/webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @ApiOperation({ summary: "List the organisation's webhooks (never their secrets)." })
  @Get()
  async list(
    @Auth() auth: AuthContext,
    @InputQuery(webhookListQuerySchema) query: WebhookListQuery,
    @Res({ passthrough: true }) res: Response,
  ): Promise<Webhook[]> {
    return sendPage(res, 'webhooks', await this.webhooks.list(auth.orgId, query));
  }

  @ApiOperation({ summary: 'Register a webhook; its signing secret is shown once, in this answer.' })
  @Post()
  create(@Auth() auth: AuthContext, @InputBody(createWebhookSchema) body: CreateWebhookInput): Promise<CreatedWebhook> {
    return this.webhooks.create(auth.orgId, body);
  }

  @ApiOperation({ summary: 'One webhook (without its secret).' })
  @Get(':id')
  get(@Auth() auth: AuthContext, @InputParam('id', webhookIdParamSchema) id: string): Promise<Webhook> {
    return this.webhooks.get(auth.orgId, id);
  }

  @ApiOperation({ summary: "Change a webhook's url, events or active flag." })
  @Put(':id')
  update(
    @Auth() auth: AuthContext,
    @InputParam('id', webhookIdParamSchema) id: string,
    @InputBody(updateWebhookSchema) body: UpdateWebhookInput,
  ): Promise<Webhook> {
    return this.webhooks.update(auth.orgId, id, body);
  }

  @ApiOperation({ summary: 'Delete a webhook and its delivery history.' })
  @Delete(':id')
  remove(@Auth() auth: AuthContext, @InputParam('id', webhookIdParamSchema) id: string): Promise<Webhook> {
    return this.webhooks.remove(auth.orgId, id);
  }

  @ApiOperation({
    summary:
      'Rotate the signing secret: the new one is shown once, in this answer, and signs every delivery sent from now on.',
  })
  @Post(':id/secret')
  @HttpCode(200)
  rotateSecret(
    @Auth() auth: AuthContext,
    @InputParam('id', webhookIdParamSchema) id: string,
    @InputBody(noBodySchema) _body: InputOf<typeof noBodySchema>,
  ): Promise<CreatedWebhook> {
    return this.webhooks.rotateSecret(auth.orgId, id);
  }

  @ApiOperation({ summary: "The webhook's latest 100 deliveries, newest first, with their outcome." })
  @Get(':id/deliveries')
  async deliveries(
    @Auth() auth: AuthContext,
    @InputParam('id', webhookIdParamSchema) id: string,
    @Res({ passthrough: true }) res: Response,
  ): Promise<WebhookDelivery[]> {
    return sendPage(res, 'deliveries', await this.webhooks.deliveries(auth.orgId, id));
  }
}

/**
 * Every delivery of the organisation's webhooks (ra-data-simple-rest resource `deliveries`): the outcome, the
 * receiver's status and the start of its answer; one can be sent again. Administrators only.
 */
@ApiTags('webhooks')
@ApiSecurity('apikey')
@AdminOnly()
@Controller('api/deliveries')
export class DeliveriesController {
  constructor(private readonly webhooks: WebhooksService) {}

  @ApiOperation({
    summary:
      "List the organisation's webhook deliveries, newest first, paginated, sorted (id, createdAt, deliveredAt, status, event) and filtered (webhook_id, status, event).",
  })
  @Get()
  async list(
    @Auth() auth: AuthContext,
    @InputQuery(deliveryListQuerySchema) query: DeliveryListQuery,
    @Res({ passthrough: true }) res: Response,
  ): Promise<WebhookDelivery[]> {
    return sendPage(res, 'deliveries', await this.webhooks.listDeliveries(auth.orgId, query));
  }

  @ApiOperation({ summary: "One delivery: its event, outcome, attempts, the receiver's status and answer excerpt." })
  @Get(':id')
  get(@Auth() auth: AuthContext, @InputParam('id', deliveryIdParamSchema) id: number): Promise<WebhookDelivery> {
    return this.webhooks.getDelivery(auth.orgId, id);
  }

  @ApiOperation({
    summary:
      'Send a delivery again: a new delivery of the same body (redelivery_of names this one), signed with the current secret.',
  })
  @Post(':id/redeliver')
  redeliver(
    @Auth() auth: AuthContext,
    @InputParam('id', deliveryIdParamSchema) id: number,
    @InputBody(noBodySchema) _body: InputOf<typeof noBodySchema>,
  ): Promise<WebhookDelivery> {
    return this.webhooks.redeliver(auth.orgId, id);
  }
}
