import type { TemplateFieldAnnotation, TemplateFieldType } from '@esign/contract';
import { Checkbox, FormControlLabel, MenuItem, TextField } from '@mui/material';
import { useText } from '../i18n/useText';

/** One form field of a PDF (its widgets grouped by name): its type and, for a radio group, its options. */
export interface FormFieldGroup {
  name: string;
  type: TemplateFieldType;
  options: string[];
}

/** The PDF's form fields by name, in the order they come, without signature fields (they take no value). */
export function formFieldGroups(annotations: readonly TemplateFieldAnnotation[]): FormFieldGroup[] {
  const groups = new Map<string, FormFieldGroup>();
  for (const a of annotations) {
    if (a.customData.type === 'signature-field') continue;
    const group = groups.get(a.formFieldName) ?? { name: a.formFieldName, type: a.customData.type, options: [] };
    if (a.customData.option !== undefined && !group.options.includes(a.customData.option))
      group.options.push(a.customData.option);
    // A dropdown (issue 21) lists its options on each widget.
    for (const option of a.customData.options ?? []) if (!group.options.includes(option)) group.options.push(option);
    groups.set(a.formFieldName, group);
  }
  return [...groups.values()];
}

/**
 * A value for a PDF's form field, as the API fills it (a template's formFieldValues, an upload's): text for a text
 * field, checked or not for a checkbox, one of a radio group's or a dropdown's options ('' none). `value` undefined: not set.
 */
const FormFieldValueInput = ({
  group,
  value,
  disabled,
  onChange,
}: {
  group: FormFieldGroup;
  value: string | boolean | undefined;
  disabled?: boolean;
  onChange: (value: string | boolean) => void;
}) => {
  const t = useText();
  const label = t('console.fields.formFieldValue', { name: group.name });
  if (group.type === 'checkbox-field')
    return (
      <FormControlLabel
        sx={{ m: 0 }}
        control={
          <Checkbox
            size="small"
            checked={value === true}
            disabled={disabled}
            onChange={(event) => onChange(event.target.checked)}
          />
        }
        label={label}
        slotProps={{ typography: { variant: 'body2' } }}
      />
    );
  if (group.type === 'radiobutton-field' || group.type === 'dropdown-field')
    return (
      <TextField
        select
        size="small"
        fullWidth
        label={label}
        value={typeof value === 'string' ? value : ''}
        disabled={disabled}
        onChange={(event) => onChange(event.target.value)}
      >
        <MenuItem value="">
          <em>{t('console.fields.valueNone')}</em>
        </MenuItem>
        {group.options.map((option) => (
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
      value={typeof value === 'string' ? value : ''}
      disabled={disabled}
      onChange={(event) => onChange(event.target.value)}
    />
  );
};

export default FormFieldValueInput;
