import { createApiKeySchema } from '@esign/contract';
import type { CreatedApiKey } from '@esign/contract';
import { Typography } from '@mui/material';
import { useState } from 'react';
import { Create, SimpleForm, TextInput, useNotify, useRedirect } from 'react-admin';
import ShownOnce from '../administration/ShownOnce';
import { schemaValidator } from '../administration/validate';
import { failureText } from '../api';
import { useMessageText, useText } from '../i18n/useText';

const fields = (values: Record<string, unknown>) => ({ name: values.name ?? '' });

/**
 * /api-keys/create (administrators): a named key. The API answers the key once: it is shown in a dialog with a copy
 * button, and Done leads back to the list, where only its first characters remain.
 */
const ApiKeyCreate = () => {
  const t = useText();
  const notify = useNotify();
  const messageText = useMessageText();
  const redirect = useRedirect();
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  return (
    <>
      <Create
        title="console.apiKeys.createTitle"
        transform={fields}
        mutationOptions={{
          onSuccess: (key: CreatedApiKey) => setCreated(key),
          onError: (error) => notify(messageText(failureText(error)), { type: 'error' }),
        }}
      >
        <SimpleForm validate={schemaValidator(createApiKeySchema, fields)}>
          <TextInput
            source="name"
            label="console.apiKeys.name"
            helperText="console.apiKeys.nameHelp"
            autoComplete="off"
          />
          <Typography variant="body2" color="text.secondary">
            {t('console.apiKeys.intro')}
          </Typography>
        </SimpleForm>
      </Create>
      <ShownOnce
        open={created !== null}
        title={t('console.apiKeys.keyTitle')}
        warning={t('console.apiKeys.keyOnce')}
        value={created?.key ?? ''}
        onDone={() => {
          setCreated(null);
          redirect('list', 'api-keys');
        }}
      />
    </>
  );
};

export default ApiKeyCreate;
