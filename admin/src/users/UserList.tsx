import type { StaffUser, StaffUserStatus } from '@esign/contract';
import BlockIcon from '@mui/icons-material/Block';
import CheckCircleOutlineIcon from '@mui/icons-material/CheckCircleOutline';
import LockResetIcon from '@mui/icons-material/LockReset';
import { Box, Chip, Typography } from '@mui/material';
import { useState } from 'react';
import {
  Button,
  Confirm,
  CreateButton,
  Datagrid,
  EditButton,
  FunctionField,
  List,
  SearchInput,
  TextField,
  TopToolbar,
  useDataProvider,
  useNotify,
  useRecordContext,
  useUpdate,
} from 'react-admin';
import { failureText } from '../api';
import TimeField from '../components/TimeField';
import { useCall } from '../components/useCall';
import type { ConsoleDataProvider } from '../dataProvider';
import type { TextKey } from '../i18n/catalogue';
import { useMessageText, useText } from '../i18n/useText';

const STATUS_COLOUR: Record<StaffUserStatus, 'default' | 'success' | 'warning'> = {
  invited: 'warning',
  active: 'success',
  disabled: 'default',
};

export const RoleField = (_props: { label?: string }) => {
  const t = useText();
  const user = useRecordContext<StaffUser>();
  return user ? <>{t(`console.users.roles.${user.role}` as TextKey)}</> : null;
};

export const StatusField = (_props: { label?: string }) => {
  const t = useText();
  const user = useRecordContext<StaffUser>();
  if (!user) return null;
  return (
    <Chip
      size="small"
      color={STATUS_COLOUR[user.status]}
      label={t(`console.users.statuses.${user.status}` as TextKey)}
      data-testid="user-status"
    />
  );
};

/** A time, or 'Never'. */
const WhenField = ({ source }: { source: 'last_login_at' | 'link_sent_at'; label?: string }) => {
  const t = useText();
  const user = useRecordContext<StaffUser>();
  if (!user) return null;
  return user[source] ? (
    <TimeField source={source} />
  ) : (
    <Typography variant="body2" color="text.secondary">
      {t('console.users.never')}
    </Typography>
  );
};

type Asked = 'toggle' | 'reset' | null;

/**
 * A user's actions: disable or re-enable (PUT disabled), and e-mail a link to set a new password (an invitation
 * again for a user who never set one). Each asks first; the API's refusal (the last administrator) is shown as it says.
 */
const UserActions = (_props: { label?: string }) => {
  const user = useRecordContext<StaffUser>();
  const t = useText();
  const messageText = useMessageText();
  const notify = useNotify();
  const dataProvider = useDataProvider<ConsoleDataProvider>();
  const [update, { isPending: updating }] = useUpdate<StaffUser>();
  const [asked, setAsked] = useState<Asked>(null);
  const { call, busy: sending } = useCall();
  if (!user) return null;
  const values = { username: user.username };

  const toggle = () =>
    update(
      'users',
      { id: user.id, data: { disabled: !user.disabled }, previousData: user },
      {
        mutationMode: 'pessimistic',
        onSuccess: () => {
          setAsked(null);
          notify(t(user.disabled ? 'console.users.enabled' : 'console.users.disabled', values), { type: 'success' });
        },
        onError: (error) => {
          setAsked(null);
          notify(messageText(failureText(error)), { type: 'error' });
        },
      },
    );

  const reset = () =>
    void call(
      () => dataProvider.sendPasswordLink(user.id),
      (sent) => sent.message,
    ).finally(() => setAsked(null));

  return (
    <Box sx={{ display: 'flex', gap: 0.5, flexWrap: 'wrap' }} onClick={(event) => event.stopPropagation()}>
      <EditButton />
      <Button
        label={user.disabled ? 'console.users.enable' : 'console.users.disable'}
        color={user.disabled ? 'primary' : 'error'}
        onClick={() => setAsked('toggle')}
      >
        {user.disabled ? <CheckCircleOutlineIcon /> : <BlockIcon />}
      </Button>
      {!user.disabled && user.email && (
        <Button label="console.users.resetPassword" onClick={() => setAsked('reset')}>
          <LockResetIcon />
        </Button>
      )}
      <Confirm
        isOpen={asked === 'toggle'}
        loading={updating}
        title={user.disabled ? 'console.users.enable' : 'console.users.disable'}
        content={user.disabled ? 'console.users.enableConfirm' : 'console.users.disableConfirm'}
        translateOptions={values}
        onConfirm={() => void toggle()}
        onClose={() => setAsked(null)}
      />
      <Confirm
        isOpen={asked === 'reset'}
        loading={sending}
        title="console.users.resetPassword"
        content="console.users.resetConfirm"
        translateOptions={values}
        onConfirm={reset}
        onClose={() => setAsked(null)}
      />
    </Box>
  );
};

/**
 * /users (administrators): the organisation's staff users, searched by username or e-mail: role, status (invited,
 * active, disabled), last sign-in, when the last link was sent; invite, edit (role, e-mail), disable or re-enable,
 * reset password.
 */
const UserList = () => {
  const t = useText();
  return (
    <List
      title="console.users.title"
      sort={{ field: 'username', order: 'ASC' }}
      filters={[<SearchInput key="q" source="q" alwaysOn />]}
      actions={
        <TopToolbar>
          <CreateButton label="console.users.invite" />
        </TopToolbar>
      }
      aside={undefined}
      empty={false}
    >
      <Typography variant="body2" color="text.secondary" sx={{ px: 2, pt: 1 }}>
        {t('console.users.intro')}
      </Typography>
      <Datagrid rowClick={false} bulkActionButtons={false} data-testid="users">
        <TextField source="username" label="console.users.username" />
        <FunctionField source="email" label="console.users.email" render={(user: StaffUser) => user.email ?? '-'} />
        <RoleField label="console.users.role" />
        <StatusField label="console.users.status" />
        <WhenField source="last_login_at" label="console.users.lastLogin" />
        <WhenField source="link_sent_at" label="console.users.linkSent" />
        <UserActions label="console.common.actions" />
      </Datagrid>
    </List>
  );
};

export default UserList;
