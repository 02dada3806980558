import {
  DEFAULT_USER_ROLE,
  PASSWORD_LINK_HOURS,
  USER_ROLES,
  inviteUserSchema,
  updateUserSchema,
} from '@esign/contract';
import type { StaffUser } from '@esign/contract';
import { Typography } from '@mui/material';
import {
  BooleanInput,
  Create,
  Edit,
  SaveButton,
  SelectInput,
  SimpleForm,
  TextInput,
  Toolbar,
  useNotify,
  useRecordContext,
  useRedirect,
} from 'react-admin';
import { failureText } from '../api';
import { schemaValidator } from '../administration/validate';
import type { TextKey } from '../i18n/catalogue';
import { useMessageText, useText } from '../i18n/useText';

/** A refusal as the API says it (in the page's language when the catalogue has it). */
const useRefusal = () => {
  const notify = useNotify();
  const messageText = useMessageText();
  return (error: unknown) => notify(messageText(failureText(error)), { type: 'error' });
};

const roleChoices = USER_ROLES.map((role) => ({ id: role, name: `console.users.roles.${role}` as TextKey }));

const inviteFields = (values: Record<string, unknown>) => ({
  username: values.username ?? '',
  email: values.email ?? '',
  role: values.role,
});
const updateFields = (values: Record<string, unknown>) => ({
  role: values.role,
  disabled: values.disabled,
  ...(values.email ? { email: values.email } : {}),
});

/**
 * /users/create (administrators): invite a user by username and e-mail, staff unless said. The API sends the e-mail
 * with the link to set a password; the page says where it went. A refusal (a taken username) is the API's message.
 */
export const UserCreate = () => {
  const t = useText();
  const notify = useNotify();
  const redirect = useRedirect();
  const refused = useRefusal();
  return (
    <Create
      title="console.users.inviteTitle"
      transform={inviteFields}
      mutationOptions={{
        onSuccess: (user: StaffUser) => {
          notify(t('admin.invitationSent', { email: user.email ?? '' }), { type: 'success' });
          redirect('list', 'users');
        },
        onError: refused,
      }}
    >
      <SimpleForm
        validate={schemaValidator(inviteUserSchema, inviteFields)}
        defaultValues={{ role: DEFAULT_USER_ROLE }}
      >
        <Typography variant="body2" color="text.secondary">
          {t('console.users.inviteHelp', { hours: PASSWORD_LINK_HOURS })}
        </Typography>
        <TextInput source="username" label="console.users.username" autoComplete="off" />
        <TextInput source="email" label="console.users.email" type="email" autoComplete="off" />
        <SelectInput source="role" label="console.users.role" choices={roleChoices} />
      </SimpleForm>
    </Create>
  );
};

const UserTitle = () => {
  const user = useRecordContext<StaffUser>();
  const t = useText();
  return <>{user ? t('console.users.editTitle', { username: user.username }) : ''}</>;
};

/**
 * /users/{id} (administrators): a user's role, e-mail and whether they may sign in. Saved when the API accepts it
 * (pessimistic): the last administrator's demotion or disabling is refused with the API's message.
 */
export const UserEdit = () => {
  const t = useText();
  const refused = useRefusal();
  return (
    <Edit
      title={<UserTitle />}
      mutationMode="pessimistic"
      transform={updateFields}
      redirect="list"
      mutationOptions={{ onError: refused }}
    >
      <SimpleForm
        validate={schemaValidator(updateUserSchema, updateFields)}
        toolbar={
          // No delete: a user is disabled, never removed (the audit trail names them).
          <Toolbar>
            <SaveButton />
          </Toolbar>
        }
      >
        <TextInput source="username" label="console.users.username" disabled />
        <TextInput source="email" label="console.users.email" type="email" />
        <SelectInput source="role" label="console.users.role" choices={roleChoices} />
        <BooleanInput source="disabled" label="console.users.statuses.disabled" />
        <Typography variant="caption" color="text.secondary">
          {t('admin.lastAdmin')}
        </Typography>
      </SimpleForm>
    </Edit>
  );
};
