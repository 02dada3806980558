import { checkFieldValue, fieldLabel } from '@esign/contract';
import type { FormFieldValues, TemplateView } from '@esign/contract';
import { Box, Paper, Stack, Typography } from '@mui/material';
import FieldValueInput from '../../fields/FieldValueInput';
import FormFieldValueInput, { formFieldGroups } from '../../fields/FormFieldValueInput';
import { PREFILL_KINDS, fromStored } from '../../fields/model';
import type { PlacedField } from '../../fields/model';
import { useMessageText, useText } from '../../i18n/useText';

/** Changes made on the Initiate page to a template's values: form fields by name, placed fields by id. */
export interface TemplateValueChanges {
  formFieldValues: FormFieldValues;
  fieldValues: Record<string, string | null>;
}

export const NO_CHANGES: TemplateValueChanges = { formFieldValues: {}, fieldValues: {} };

/** The template's fields whose value can be filled in before sending, in role order. */
export function prefillableFields(template: TemplateView): PlacedField[] {
  return (template.template_annotation.fields ?? [])
    .flatMap((stored) => {
      const field = fromStored(stored);
      return field && PREFILL_KINDS.includes(field.kind) ? [{ ...field, value: stored.value ?? null }] : [];
    })
    .sort((a, b) => a.signer - b.signer);
}

/** The first change the API would refuse (a value its field does not take), as the contract says it; else null. */
export function templateValuesProblem(template: TemplateView, changes: TemplateValueChanges): string | null {
  for (const field of prefillableFields(template)) {
    if (!(field.id in changes.fieldValues)) continue;
    const checked = checkFieldValue(field, changes.fieldValues[field.id]);
    if (!checked.ok) return checked.message;
  }
  return null;
}

/**
 * What PROCEED sends beside template_id (only what was changed here): formFieldValues (form field name → value) and
 * fieldValues (field id → value; '' empties a prefilled value). Nothing when nothing changed.
 */
export function templateValuesPayload(changes: TemplateValueChanges): Record<string, string> {
  const out: Record<string, string> = {};
  if (Object.keys(changes.formFieldValues).length) out.formFieldValues = JSON.stringify(changes.formFieldValues);
  if (Object.keys(changes.fieldValues).length)
    out.fieldValues = JSON.stringify(
      Object.fromEntries(Object.entries(changes.fieldValues).map(([id, value]) => [id, value ?? ''])),
    );
  return out;
}

/**
 * A picked template's values, to change for this request: its PDF's form fields (the template's values first) and
 * its fields' prefilled values, by role (Signer n: the n-th recipient who needs to sign).
 */
const TemplateValues = ({
  template,
  changes,
  disabled,
  onChange,
}: {
  template: TemplateView;
  changes: TemplateValueChanges;
  disabled?: boolean;
  onChange: (changes: TemplateValueChanges) => void;
}) => {
  const t = useText();
  const messageText = useMessageText();
  const annotation = template.template_annotation;
  const groups = formFieldGroups(annotation.annotations ?? []);
  const fields = prefillableFields(template);
  if (!groups.length && !fields.length) return null;
  const saved = annotation.formFieldValues ?? {};
  return (
    <Paper variant="outlined" sx={{ p: 2 }} data-testid="template-values">
      <Typography variant="subtitle1" component="h2" sx={{ fontWeight: 700 }}>
        {t('console.fields.templateValuesHeading')}
      </Typography>
      <Typography variant="caption" color="text.secondary" component="p" sx={{ mb: 1.5 }}>
        {t('console.fields.templateValuesHint')}
      </Typography>
      <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 3 }}>
        {groups.length > 0 && (
          <Stack spacing={1.5} sx={{ flex: '1 1 280px', maxWidth: 480 }}>
            <Typography variant="subtitle2">{t('console.fields.formFieldsHeading')}</Typography>
            {groups.map((group) => (
              <Box key={group.name} data-testid="template-form-value" data-field-name={group.name}>
                <FormFieldValueInput
                  group={group}
                  value={
                    group.name in changes.formFieldValues ? changes.formFieldValues[group.name] : saved[group.name]
                  }
                  disabled={disabled}
                  onChange={(value) =>
                    onChange({ ...changes, formFieldValues: { ...changes.formFieldValues, [group.name]: value } })
                  }
                />
              </Box>
            ))}
          </Stack>
        )}
        {fields.length > 0 && (
          <Stack spacing={1.5} sx={{ flex: '1 1 280px', maxWidth: 480 }}>
            <Typography variant="subtitle2">{t('console.fields.prefilledHeading')}</Typography>
            {fields.map((field) => (
              <Box key={field.id} data-testid="template-field-value" data-field-id={field.id}>
                <FieldValueInput
                  field={field}
                  value={field.id in changes.fieldValues ? changes.fieldValues[field.id] : field.value}
                  label={`${t('console.fields.roleName', { n: field.signer })}: ${messageText(fieldLabel(field))}`}
                  disabled={disabled}
                  onChange={(value) =>
                    onChange({ ...changes, fieldValues: { ...changes.fieldValues, [field.id]: value } })
                  }
                />
              </Box>
            ))}
          </Stack>
        )}
      </Box>
    </Paper>
  );
};

export default TemplateValues;
