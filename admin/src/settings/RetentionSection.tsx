import { RETENTION_MAX_DAYS } from '@esign/contract';
import { TextField, Typography } from '@mui/material';
import { useMessageText, useText } from '../i18n/useText';
import type { RetentionField, SettingsSectionProps } from './form';
import { Section } from './rows';

/**
 * Retention (issue 24): how long an ended request (completed, rejected, expired, cancelled) keeps its documents, and a
 * shorter period for selfies and videos; empty keeps them for ever (the default). Digits only while typed; the API's
 * range and the media rule are checked by validateSettings with the contract's messages.
 */
const RetentionSection = ({ form, problems, onChange }: SettingsSectionProps) => {
  const t = useText();
  const messageText = useMessageText();
  const field = (name: RetentionField, label: string, help: string) => (
    <TextField
      label={label}
      value={form[name]}
      onChange={(event) => onChange({ [name]: event.target.value.replace(/[^\d]/g, '').slice(0, 6) })}
      error={Boolean(problems[name])}
      helperText={problems[name] ? messageText(problems[name]) : help}
      placeholder={t('console.retention.forever')}
      slotProps={{ htmlInput: { inputMode: 'numeric' }, inputLabel: { shrink: true } }}
      sx={{ maxWidth: 420 }}
      data-testid={name}
    />
  );
  return (
    <Section title={t('console.retention.section')} intro={t('console.retention.intro')}>
      <Typography variant="body2" color="text.secondary">
        {t('console.retention.appliesTo')}
      </Typography>
      {field(
        'retention_days',
        t('console.retention.documents'),
        t('console.retention.documentsHelp', { max: RETENTION_MAX_DAYS }),
      )}
      {field('media_retention_days', t('console.retention.media'), t('console.retention.mediaHelp'))}
    </Section>
  );
};

export default RetentionSection;
