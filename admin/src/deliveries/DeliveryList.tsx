import { WEBHOOK_EVENTS } from '@esign/contract';
import { Typography } from '@mui/material';
import { List, SelectInput } from 'react-admin';
import type { TextKey } from '../i18n/catalogue';
import { useText } from '../i18n/useText';
import DeliveryGrid from './DeliveryGrid';

const STATUSES = ['pending', 'delivered', 'failed'] as const;

/** /deliveries (administrators): every webhook delivery, newest first, filtered by status or event; send one again. */
const DeliveryList = () => {
  const t = useText();
  const filters = [
    <SelectInput
      key="status"
      source="status"
      label="console.deliveries.status"
      choices={STATUSES.map((status) => ({ id: status, name: `console.deliveries.statuses.${status}` as TextKey }))}
      alwaysOn
    />,
    <SelectInput
      key="event"
      source="event"
      label="console.deliveries.event"
      choices={WEBHOOK_EVENTS.map((event) => ({ id: event, name: event }))}
      translateChoice={false}
      alwaysOn
    />,
  ];
  return (
    <List title="console.deliveries.title" sort={{ field: 'createdAt', order: 'DESC' }} filters={filters} empty={false}>
      <Typography variant="body2" color="text.secondary" sx={{ px: 2, pt: 1 }}>
        {t('console.deliveries.intro')}
      </Typography>
      <DeliveryGrid webhook />
    </List>
  );
};

export default DeliveryList;
