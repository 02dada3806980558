import WebhookOutlinedIcon from '@mui/icons-material/WebhookOutlined';
import { adminOnly } from '../administration/RequireAdmin';
import WebhookCreate from './WebhookCreate';
import WebhookList from './WebhookList';
import WebhookShow from './WebhookShow';

/**
 * The webhooks resource (/api/webhooks): administrators add a webhook (its secret shown once), and on its page see its
 * deliveries, rotate the secret, enable or disable it and delete it.
 */
export default {
  list: adminOnly(WebhookList),
  create: adminOnly(WebhookCreate),
  show: adminOnly(WebhookShow),
  icon: WebhookOutlinedIcon,
  recordRepresentation: 'url',
};
