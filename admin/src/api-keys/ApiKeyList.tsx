import type { ApiKeySummary } from '@esign/contract';
import KeyOffIcon from '@mui/icons-material/KeyOff';
import { Chip, Typography } from '@mui/material';
import { useState } from 'react';
import {
  Button,
  Confirm,
  CreateButton,
  Datagrid,
  List,
  SearchInput,
  TextField,
  TopToolbar,
  useDelete,
  useNotify,
  useRecordContext,
} from 'react-admin';
import { failureText } from '../api';
import TimeField from '../components/TimeField';
import { useMessageText, useText } from '../i18n/useText';

/** A time, or 'Never' (a key never used). */
const UsedField = (_props: { label?: string }) => {
  const key = useRecordContext<ApiKeySummary>();
  const t = useText();
  if (!key) return null;
  return key.last_used_at ? (
    <TimeField source="last_used_at" />
  ) : (
    <Typography variant="body2" color="text.secondary">
      {t('console.users.never')}
    </Typography>
  );
};

/** Active, or when it was revoked. */
const KeyState = (_props: { label?: string }) => {
  const key = useRecordContext<ApiKeySummary>();
  const t = useText();
  if (!key) return null;
  return key.revoked_at ? (
    <span data-testid="key-state">
      <Chip size="small" label={t('console.apiKeys.revokedAt')} icon={<KeyOffIcon />} sx={{ mr: 1 }} />
      <TimeField source="revoked_at" />
    </span>
  ) : (
    <Chip size="small" color="success" label={t('console.apiKeys.active')} data-testid="key-state" />
  );
};

/** Revoke (DELETE /api/api-keys/{id}) after a confirmation naming the key; a revoked key stays listed as such. */
const RevokeButton = (_props: { label?: string }) => {
  const key = useRecordContext<ApiKeySummary>();
  const notify = useNotify();
  const t = useText();
  const messageText = useMessageText();
  const [asking, setAsking] = useState(false);
  const [remove, { isPending }] = useDelete<ApiKeySummary>();
  if (!key || key.revoked_at) return null;
  const revoke = () =>
    remove(
      'api-keys',
      { id: key.id, previousData: key },
      {
        mutationMode: 'pessimistic',
        onSuccess: () => {
          setAsking(false);
          notify(t('console.apiKeys.revoked', { name: key.name }), { type: 'success' });
        },
        onError: (error) => {
          setAsking(false);
          notify(messageText(failureText(error)), { type: 'error' });
        },
      },
    );
  return (
    <>
      <Button label="console.apiKeys.revoke" color="error" onClick={() => setAsking(true)}>
        <KeyOffIcon />
      </Button>
      <Confirm
        isOpen={asking}
        loading={isPending}
        title="console.apiKeys.revoke"
        content="console.apiKeys.revokeConfirm"
        translateOptions={{ name: key.name }}
        onConfirm={() => void revoke()}
        onClose={() => setAsking(false)}
      />
    </>
  );
};

/**
 * /api-keys (administrators): the organisation's API keys, newest first: name, how the key starts, when it was made
 * and last used, revoked or not; create (the key shown once), revoke.
 */
const ApiKeyList = () => {
  const t = useText();
  return (
    <List
      title="console.apiKeys.title"
      sort={{ field: 'created_at', order: 'DESC' }}
      filters={[<SearchInput key="q" source="q" alwaysOn />]}
      actions={
        <TopToolbar>
          <CreateButton label="console.apiKeys.create" />
        </TopToolbar>
      }
      empty={false}
    >
      <Typography variant="body2" color="text.secondary" sx={{ px: 2, pt: 1 }}>
        {t('console.apiKeys.intro')}
      </Typography>
      <Datagrid rowClick={false} bulkActionButtons={false} data-testid="api-keys">
        <TextField source="name" label="console.apiKeys.name" />
        <TextField source="prefix" label="console.apiKeys.prefix" sx={{ fontFamily: 'monospace' }} />
        <TimeField source="created_at" label="console.apiKeys.created" />
        <UsedField label="console.apiKeys.lastUsed" />
        <KeyState label="console.common.status" />
        <RevokeButton label="console.common.actions" />
      </Datagrid>
    </List>
  );
};

export default ApiKeyList;
