import { checkFieldValue } from '@esign/contract';
import { Checkbox, FormControlLabel, MenuItem, TextField } from '@mui/material';
import type { PlacedField } from './model';
import { useText } from '../i18n/useText';

/**
 * A value filled in before sending, as its kind takes it: text or a number typed, a checkbox ticked ('true' or
 * 'false'), a dropdown's or radio group's option picked ('' none). The contract's check (checkFieldValue) shows what
 * the API would refuse.
 */
const FieldValueInput = ({
  field,
  value,
  label,
  disabled,
  onChange,
  testId,
}: {
  field: PlacedField;
  value: string | null | undefined;
  label: string;
  disabled?: boolean;
  onChange: (value: string | null) => void;
  testId?: string;
}) => {
  const t = useText();
  if (field.kind === 'checkbox')
    return (
      <FormControlLabel
        control={
          <Checkbox
            checked={value === 'true'}
            disabled={disabled}
            onChange={(event) => onChange(event.target.checked ? 'true' : 'false')}
            slotProps={{ input: { 'data-testid': testId } as object }}
          />
        }
        label={label}
      />
    );
  const checked = value ? checkFieldValue(field, value) : null;
  const problem = checked && !checked.ok ? checked.message : '';
  if (field.kind === 'dropdown' || field.kind === 'radio')
    return (
      <TextField
        select
        size="small"
        fullWidth
        label={label}
        value={value ?? ''}
        disabled={disabled}
        onChange={(event) => onChange(event.target.value || null)}
        error={Boolean(problem)}
        helperText={problem || undefined}
        slotProps={{ htmlInput: { 'data-testid': testId } }}
      >
        <MenuItem value="">
          <em>{t('console.fields.valueNone')}</em>
        </MenuItem>
        {(field.options ?? []).map((option) => (
          <MenuItem key={option} value={option}>
            {option}
          </MenuItem>
        ))}
      </TextField>
    );
  return (
    <TextField
      size="small"
      fullWidth
      label={label}
      value={value ?? ''}
      disabled={disabled}
      placeholder={field.placeholder ?? undefined}
      onChange={(event) => onChange(event.target.value === '' ? null : event.target.value)}
      error={Boolean(problem)}
      helperText={problem || undefined}
      slotProps={{
        htmlInput: {
          'data-testid': testId,
          inputMode: field.kind === 'number' ? 'decimal' : undefined,
        },
      }}
    />
  );
};

export default FieldValueInput;
