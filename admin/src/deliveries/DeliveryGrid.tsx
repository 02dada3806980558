import type { WebhookDelivery, WebhookDeliveryStatus } from '@esign/contract';
import ReplayIcon from '@mui/icons-material/Replay';
import { Box, Chip, Typography } from '@mui/material';
import {
  Button,
  Datagrid,
  FunctionField,
  ReferenceField,
  TextField,
  useDataProvider,
  useRecordContext,
} from 'react-admin';
import { KeyboardExpandBody } from '../components/KeyboardRows';
import TimeField from '../components/TimeField';
import { useCall } from '../components/useCall';
import type { ConsoleDataProvider } from '../dataProvider';
import type { TextKey } from '../i18n/catalogue';
import { useText } from '../i18n/useText';

const STATUS_COLOUR: Record<WebhookDeliveryStatus, 'default' | 'success' | 'error'> = {
  pending: 'default',
  delivered: 'success',
  failed: 'error',
};

const DeliveryStatus = (_props: { label?: string }) => {
  const delivery = useRecordContext<WebhookDelivery>();
  const t = useText();
  if (!delivery) return null;
  return (
    <Chip
      size="small"
      color={STATUS_COLOUR[delivery.status]}
      label={t(`console.deliveries.statuses.${delivery.status}` as TextKey)}
      data-testid="delivery-status"
      data-status={delivery.status}
    />
  );
};

/** The receiver's answer: its status code and the start of its body (the API keeps at most 4 KB), or the error. */
const DeliveryAnswer = () => {
  const delivery = useRecordContext<WebhookDelivery>();
  const t = useText();
  if (!delivery) return null;
  return (
    <Box sx={{ p: 2, bgcolor: 'background.default' }} data-testid="delivery-answer">
      {delivery.redelivery_of !== null && (
        <Typography variant="body2">{t('console.deliveries.redeliveryOf', { id: delivery.redelivery_of })}</Typography>
      )}
      {delivery.error && (
        <Typography variant="body2" color="error">
          {t('console.deliveries.error')}: {delivery.error}
        </Typography>
      )}
      <Typography variant="subtitle2" component="h3">
        {t('console.deliveries.excerpt')}
      </Typography>
      {delivery.response_excerpt === null ? (
        <Typography variant="body2" color="text.secondary">
          {t('console.deliveries.noAnswer')}
        </Typography>
      ) : (
        <Box
          component="pre"
          data-testid="delivery-excerpt"
          sx={{
            m: 0,
            whiteSpace: 'pre-wrap',
            overflowWrap: 'anywhere',
            fontSize: 13,
            maxHeight: 240,
            overflow: 'auto',
          }}
        >
          {delivery.response_excerpt}
        </Box>
      )}
    </Box>
  );
};

/** Sends the delivery again (a new delivery of the same body, signed with the current secret). */
const RedeliverButton = (_props: { label?: string }) => {
  const delivery = useRecordContext<WebhookDelivery>();
  const dataProvider = useDataProvider<ConsoleDataProvider>();
  const t = useText();
  const { call, busy } = useCall();
  if (!delivery || delivery.status === 'pending') return null;
  const redeliver = () =>
    call(
      () => dataProvider.redeliver(delivery.id),
      () => t('admin.redeliveryQueued'),
    );
  return (
    <Button
      label="console.deliveries.redeliver"
      disabled={busy}
      onClick={(event) => {
        event.stopPropagation();
        void redeliver();
      }}
    >
      <ReplayIcon />
    </Button>
  );
};

/**
 * The deliveries' datagrid, for /deliveries and a webhook's page: newest first, each row expanding into the receiver's
 * answer (status code, body excerpt, error), with 'Send again'. `webhook`: show which webhook each went to.
 */
const DeliveryGrid = ({ webhook = false }: { webhook?: boolean }) => (
  <Datagrid
    rowClick="expand"
    expand={<DeliveryAnswer />}
    body={KeyboardExpandBody}
    bulkActionButtons={false}
    data-testid="deliveries"
  >
    <TextField source="id" label="console.deliveries.id" />
    <TextField source="event" label="console.deliveries.event" />
    {webhook && (
      <ReferenceField source="webhook_id" reference="webhooks" label="console.deliveries.webhook" link="show">
        <TextField source="url" />
      </ReferenceField>
    )}
    <DeliveryStatus label="console.deliveries.status" />
    <TextField source="attempts" label="console.deliveries.attempts" />
    <FunctionField
      source="responseStatus"
      label="console.deliveries.responseCode"
      render={(delivery: WebhookDelivery) => delivery.responseStatus ?? '-'}
    />
    <TimeField source="createdAt" label="console.deliveries.created" />
    <FunctionField
      source="deliveredAt"
      label="console.deliveries.delivered"
      render={(delivery: WebhookDelivery) => (delivery.deliveredAt ? <TimeField source="deliveredAt" /> : '-')}
    />
    <RedeliverButton label="console.common.actions" />
  </Datagrid>
);

export default DeliveryGrid;
