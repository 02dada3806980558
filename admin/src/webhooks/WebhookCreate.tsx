import { WEBHOOK_ALL_EVENTS, WEBHOOK_EVENTS, createWebhookSchema } from '@esign/contract';
import type { CreatedWebhook } from '@esign/contract';
import { useState } from 'react';
import {
  BooleanInput,
  CheckboxGroupInput,
  Create,
  FormDataConsumer,
  SimpleForm,
  TextInput,
  useNotify,
  useRedirect,
} from 'react-admin';
import ShownOnce from '../administration/ShownOnce';
import { schemaValidator } from '../administration/validate';
import { failureText } from '../api';
import { useMessageText, useText } from '../i18n/useText';

/** The body of POST /api/webhooks: the URL, and '*' or the events ticked. */
const fields = (values: Record<string, unknown>) => ({
  url: String(values.url ?? '').trim(),
  events: values.every ? [WEBHOOK_ALL_EVENTS] : ((values.events as string[] | undefined) ?? []),
});

/**
 * /webhooks/create (administrators): the address and the events (every event, or those ticked). The signing secret
 * is answered once: shown in a dialog with a copy button; Done opens the webhook's page.
 */
const WebhookCreate = () => {
  const t = useText();
  const notify = useNotify();
  const messageText = useMessageText();
  const redirect = useRedirect();
  const [created, setCreated] = useState<CreatedWebhook | null>(null);
  return (
    <>
      <Create
        title="console.webhooks.createTitle"
        transform={fields}
        mutationOptions={{
          onSuccess: (webhook: CreatedWebhook) => setCreated(webhook),
          onError: (error) => notify(messageText(failureText(error)), { type: 'error' }),
        }}
      >
        <SimpleForm validate={schemaValidator(createWebhookSchema, fields)} defaultValues={{ every: true, events: [] }}>
          <TextInput
            source="url"
            label="console.webhooks.url"
            helperText="console.webhooks.urlHelp"
            type="url"
            fullWidth
          />
          <BooleanInput source="every" label="console.webhooks.allEvents" />
          <FormDataConsumer>
            {({ formData }) =>
              formData.every ? null : (
                <CheckboxGroupInput
                  source="events"
                  label="console.webhooks.events"
                  choices={WEBHOOK_EVENTS.map((event) => ({ id: event, name: event }))}
                  translateChoice={false}
                  row={false}
                />
              )
            }
          </FormDataConsumer>
        </SimpleForm>
      </Create>
      <ShownOnce
        open={created !== null}
        title={t('console.webhooks.secretTitle')}
        warning={t('console.webhooks.secretOnce')}
        value={created?.secret ?? ''}
        onDone={() => {
          const id = created?.id;
          setCreated(null);
          redirect('show', 'webhooks', id);
        }}
      />
    </>
  );
};

export default WebhookCreate;
