import { WEBHOOK_ALL_EVENTS } from '@esign/contract';
import type { Webhook } from '@esign/contract';
import { Box, Chip, Typography } from '@mui/material';
import { CreateButton, Datagrid, List, TextField, TopToolbar, useRecordContext } from 'react-admin';
import TimeField from '../components/TimeField';
import { useText } from '../i18n/useText';

/** The events a webhook is subscribed to ('Every event' for '*'). */
export const EventsField = (_props: { label?: string }) => {
  const webhook = useRecordContext<Webhook>();
  const t = useText();
  if (!webhook) return null;
  return (
    <Box sx={{ display: 'flex', gap: 0.5, flexWrap: 'wrap' }}>
      {webhook.events.map((event) => (
        <Chip
          key={event}
          size="small"
          variant="outlined"
          label={event === WEBHOOK_ALL_EVENTS ? t('console.webhooks.allEvents') : event}
        />
      ))}
    </Box>
  );
};

export const ActiveField = (_props: { label?: string }) => {
  const webhook = useRecordContext<Webhook>();
  const t = useText();
  if (!webhook) return null;
  return (
    <Chip
      size="small"
      color={webhook.active ? 'success' : 'default'}
      label={t(webhook.active ? 'console.webhooks.active' : 'console.webhooks.inactive')}
    />
  );
};

/** /webhooks (administrators): the organisation's webhooks; a row opens its page (deliveries, secret, enable). */
const WebhookList = () => {
  const t = useText();
  return (
    <List
      title="console.webhooks.title"
      sort={{ field: 'createdAt', order: 'DESC' }}
      actions={
        <TopToolbar>
          <CreateButton label="console.webhooks.create" />
        </TopToolbar>
      }
      empty={false}
    >
      <Typography variant="body2" color="text.secondary" sx={{ px: 2, pt: 1 }}>
        {t('console.webhooks.intro')}
      </Typography>
      <Datagrid rowClick="show" bulkActionButtons={false} data-testid="webhooks">
        <TextField source="url" label="console.webhooks.url" sx={{ overflowWrap: 'anywhere' }} />
        <EventsField label="console.webhooks.events" />
        <ActiveField label="console.common.status" />
        <TimeField source="createdAt" label="console.webhooks.created" />
      </Datagrid>
    </List>
  );
};

export default WebhookList;
