import { Limits, REMINDER_LABELS } from '@esign/contract';
import type { ReminderHours } from '@esign/contract';
import { MenuItem, TextField } from '@mui/material';
import { useMessageText, useText } from '../i18n/useText';
import type { SettingsSectionProps } from './form';
import { Section } from './rows';

/** What a new request starts with: the reminder Initiate Request starts with, and the days until a request expires. */
const RequestDefaults = ({ form, problems, onChange }: SettingsSectionProps) => {
  const t = useText();
  const messageText = useMessageText();
  return (
    <Section title={t('console.organisation.requestsSection')} intro={t('console.organisation.requestsIntro')}>
      <TextField
        select
        label={t('console.organisation.reminderDefault')}
        value={form.reminder_default_hours === null ? '' : String(form.reminder_default_hours)}
        onChange={(event) =>
          onChange({
            reminder_default_hours: event.target.value === '' ? null : (Number(event.target.value) as ReminderHours),
          })
        }
        helperText={t('console.organisation.reminderDefaultHelp')}
        sx={{ maxWidth: 420 }}
        slotProps={{ select: { displayEmpty: true }, inputLabel: { shrink: true } }}
        data-testid="reminder-default"
      >
        <MenuItem value="">{t('console.common.none')}</MenuItem>
        {Limits.reminderHours.map((hours) => (
          <MenuItem key={hours} value={String(hours)}>
            {messageText(REMINDER_LABELS[hours])}
          </MenuItem>
        ))}
      </TextField>
      <TextField
        label={t('console.organisation.expiryDays')}
        value={form.request_expiry_days}
        onChange={(event) => onChange({ request_expiry_days: event.target.value.replace(/[^\d]/g, '').slice(0, 3) })}
        error={Boolean(problems.request_expiry_days)}
        helperText={
          problems.request_expiry_days
            ? messageText(problems.request_expiry_days)
            : t('console.organisation.expiryHelp')
        }
        slotProps={{ htmlInput: { inputMode: 'numeric' } }}
        sx={{ maxWidth: 420 }}
      />
    </Section>
  );
};

export default RequestDefaults;
