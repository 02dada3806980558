import type { Webhook } from '@esign/contract';
import KeyIcon from '@mui/icons-material/Key';
import PauseCircleOutlineIcon from '@mui/icons-material/PauseCircleOutline';
import PlayCircleOutlineIcon from '@mui/icons-material/PlayCircleOutline';
import { Box, Typography } from '@mui/material';
import { useState } from 'react';
import {
  Button,
  Confirm,
  DeleteWithConfirmButton,
  Pagination,
  ReferenceManyField,
  Show,
  SimpleShowLayout,
  TextField,
  TopToolbar,
  useDataProvider,
  useNotify,
  useRecordContext,
  useRefresh,
  useUpdate,
} from 'react-admin';
import ShownOnce from '../administration/ShownOnce';
import { failureText } from '../api';
import TimeField from '../components/TimeField';
import { useCall } from '../components/useCall';
import type { ConsoleDataProvider } from '../dataProvider';
import DeliveryGrid from '../deliveries/DeliveryGrid';
import { useMessageText, useText } from '../i18n/useText';
import { ActiveField, EventsField } from './WebhookList';

/** Rotate the secret (after a confirmation; the new one shown once), enable or disable, delete. */
const WebhookActions = () => {
  const webhook = useRecordContext<Webhook>();
  const dataProvider = useDataProvider<ConsoleDataProvider>();
  const notify = useNotify();
  const refresh = useRefresh();
  const t = useText();
  const messageText = useMessageText();
  const [update, { isPending: updating }] = useUpdate<Webhook>();
  const [asking, setAsking] = useState(false);
  const { call, busy: rotating } = useCall();
  const [secret, setSecret] = useState<string | null>(null);
  if (!webhook) return <TopToolbar />;
  const refused = (error: unknown) => notify(messageText(failureText(error)), { type: 'error' });
  const rotate = async () => {
    const rotated = await call(
      () => dataProvider.rotateWebhookSecret(webhook.id),
      () => t('admin.secretRotated'),
      {
        refresh: false,
      },
    );
    setAsking(false);
    if (rotated) setSecret(rotated.secret);
  };
  return (
    <TopToolbar>
      <Button label="console.webhooks.rotate" onClick={() => setAsking(true)}>
        <KeyIcon />
      </Button>
      <Button
        label={webhook.active ? 'console.webhooks.disable' : 'console.webhooks.enable'}
        disabled={updating}
        onClick={() =>
          void update(
            'webhooks',
            { id: webhook.id, data: { active: !webhook.active }, previousData: webhook },
            { mutationMode: 'pessimistic', onError: refused, onSuccess: () => refresh() },
          )
        }
      >
        {webhook.active ? <PauseCircleOutlineIcon /> : <PlayCircleOutlineIcon />}
      </Button>
      <DeleteWithConfirmButton
        label="console.webhooks.delete"
        confirmTitle="console.webhooks.delete"
        confirmContent="console.webhooks.deleteConfirm"
        translateOptions={{ url: webhook.url }}
        mutationMode="pessimistic"
        redirect="list"
      />
      <Confirm
        isOpen={asking}
        loading={rotating}
        title="console.webhooks.rotate"
        content="console.webhooks.rotateConfirm"
        onConfirm={() => void rotate()}
        onClose={() => setAsking(false)}
      />
      <ShownOnce
        open={secret !== null}
        title={t('console.webhooks.secretTitle')}
        warning={t('console.webhooks.secretOnce')}
        value={secret ?? ''}
        onDone={() => setSecret(null)}
      />
    </TopToolbar>
  );
};

const WebhookTitle = () => {
  const webhook = useRecordContext<Webhook>();
  const t = useText();
  return <>{webhook ? t('console.webhooks.detailsTitle', { url: webhook.url }) : ''}</>;
};

/**
 * /webhooks/{id}/show (administrators): the webhook (address, events, state) and its deliveries, newest first, with
 * the receiver's answers; rotate the secret, enable or disable, delete; send a delivery again.
 */
const WebhookShow = () => {
  const t = useText();
  return (
    <Show title={<WebhookTitle />} actions={<WebhookActions />}>
      <SimpleShowLayout>
        <TextField source="url" label="console.webhooks.url" sx={{ overflowWrap: 'anywhere' }} />
        <EventsField label="console.webhooks.events" />
        <ActiveField label="console.common.status" />
        <TimeField source="createdAt" label="console.webhooks.created" />
      </SimpleShowLayout>
      {/* Outside SimpleShowLayout's labelled rows, which size to their content: the grid scrolls within the card. */}
      <Box component="section" aria-labelledby="webhook-deliveries" sx={{ px: 2, pb: 2, minWidth: 0 }}>
        <Typography id="webhook-deliveries" component="h2" variant="subtitle1" sx={{ fontWeight: 600 }}>
          {t('console.webhooks.deliveries')}
        </Typography>
        <ReferenceManyField
          reference="deliveries"
          target="webhook_id"
          sort={{ field: 'createdAt', order: 'DESC' }}
          perPage={10}
          pagination={<Pagination />}
          empty={<Typography color="text.secondary">{t('console.deliveries.noAnswer')}</Typography>}
        >
          <DeliveryGrid />
        </ReferenceManyField>
      </Box>
    </Show>
  );
};

export default WebhookShow;
