import PeopleOutlineIcon from '@mui/icons-material/PeopleOutline';
import { adminOnly } from '../administration/RequireAdmin';
import { UserCreate, UserEdit } from './UserForms';
import UserList from './UserList';

/** The users resource (/api/users): administrators invite, edit, disable and re-enable staff users. */
export default {
  list: adminOnly(UserList),
  create: adminOnly(UserCreate),
  edit: adminOnly(UserEdit),
  icon: PeopleOutlineIcon,
  recordRepresentation: 'username',
};
