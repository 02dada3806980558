import SendOutlinedIcon from '@mui/icons-material/SendOutlined';
import { adminOnly } from '../administration/RequireAdmin';
import DeliveryList from './DeliveryList';

/** The deliveries resource (/api/deliveries): every webhook delivery, with the receiver's answer; redeliver one. */
export default {
  list: adminOnly(DeliveryList),
  icon: SendOutlinedIcon,
  recordRepresentation: 'id',
};
