import VpnKeyOutlinedIcon from '@mui/icons-material/VpnKeyOutlined';
import { adminOnly } from '../administration/RequireAdmin';
import ApiKeyCreate from './ApiKeyCreate';
import ApiKeyList from './ApiKeyList';

/** The api-keys resource (/api/api-keys): administrators create (the key shown once) and revoke keys. */
export default {
  list: adminOnly(ApiKeyList),
  create: adminOnly(ApiKeyCreate),
  icon: VpnKeyOutlinedIcon,
  recordRepresentation: 'name',
};
