import { FIELD_KIND_LABELS, FIELD_PATTERNS, FILLED_KINDS, FieldLimits } from '@esign/contract';
import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutline';
import { Box, Button, Checkbox, FormControlLabel, MenuItem, Stack, TextField, Typography } from '@mui/material';
import { useState } from 'react';
import FieldValueInput from './FieldValueInput';
import { EDITABLE_KINDS, PATTERN_NAMES, PREFILL_KINDS, isChoice, patternChoice } from './model';
import type { PlacedField } from './model';
import { useMessageText, useText } from '../i18n/useText';

const PLACEHOLDER_KINDS = ['text', 'number', 'name', 'initials', 'dropdown'];

/**
 * The selected field's options, as its kind has them: label, required, placeholder, max length and format (a preset:
 * PAN, PIN, IFSC, GSTIN, or an own expression and its message), options of a dropdown or radio group, whether the
 * signer may change a name or initials, and a prefilled value. Below: what the API would refuse (`problems`), 'Copy to
 * every page' and 'Delete field'. Mounted per field (key it by id): the options' text is kept as typed.
 */
const FieldPanel = ({
  field,
  colour,
  problems,
  disabled,
  onChange,
  onRemove,
  onCopyToEveryPage,
}: {
  field: PlacedField;
  colour: string;
  problems: string[];
  disabled?: boolean;
  onChange: (field: PlacedField) => void;
  onRemove: () => void;
  onCopyToEveryPage?: () => void;
}) => {
  const t = useText();
  const messageText = useMessageText();
  const [optionsText, setOptionsText] = useState(() => (field.options ?? []).join('\n'));
  const [choice, setChoice] = useState(() => patternChoice(field.pattern));
  const set = (change: Partial<PlacedField>) => onChange({ ...field, ...change });
  const kind = field.kind;
  const named = field.pattern ? FIELD_PATTERNS[field.pattern as keyof typeof FIELD_PATTERNS] : undefined;

  return (
    <Stack
      spacing={1.5}
      data-testid="field-panel"
      data-field-id={field.id}
      sx={{ borderLeft: `4px solid ${colour}`, pl: 1.5 }}
    >
      <Typography variant="subtitle2" component="h3" sx={{ fontWeight: 700 }}>
        {t('console.fields.panelHeading')}: {messageText(FIELD_KIND_LABELS[kind])}{' '}
        <Typography component="span" variant="caption" color="text.secondary">
          ({field.id}, p. {field.page})
        </Typography>
      </Typography>
      <TextField
        size="small"
        label={t('console.fields.label')}
        value={field.label ?? ''}
        disabled={disabled}
        onChange={(event) => set({ label: event.target.value })}
        slotProps={{ htmlInput: { maxLength: FieldLimits.labelMaxLength, 'data-testid': 'field-label' } }}
      />
      {FILLED_KINDS.includes(kind) && (
        <FormControlLabel
          control={
            <Checkbox
              size="small"
              checked={field.required}
              disabled={disabled}
              onChange={(event) => set({ required: event.target.checked })}
            />
          }
          label={t('console.fields.required')}
        />
      )}
      {PLACEHOLDER_KINDS.includes(kind) && (
        <TextField
          size="small"
          label={t('console.fields.placeholder')}
          value={field.placeholder ?? ''}
          disabled={disabled}
          onChange={(event) => set({ placeholder: event.target.value })}
          slotProps={{ htmlInput: { maxLength: FieldLimits.placeholderMaxLength } }}
        />
      )}
      {kind === 'text' && (
        <>
          <TextField
            size="small"
            type="number"
            label={t('console.fields.maxLength')}
            value={field.maxLength ?? ''}
            disabled={disabled}
            placeholder={String(FieldLimits.defaultTextMaxLength)}
            onChange={(event) => set({ maxLength: event.target.value === '' ? null : Number(event.target.value) })}
            slotProps={{ htmlInput: { min: 1, max: FieldLimits.textMaxLength, 'data-testid': 'field-max-length' } }}
          />
          <TextField
            select
            size="small"
            label={t('console.fields.pattern')}
            value={choice}
            disabled={disabled}
            onChange={(event) => {
              const next = event.target.value;
              setChoice(next);
              if (next === 'custom') set({ pattern: named ? '' : field.pattern, patternMessage: null });
              else set({ pattern: next || null, patternMessage: null });
            }}
            slotProps={{ htmlInput: { 'data-testid': 'field-pattern' } }}
          >
            <MenuItem value="">{t('console.fields.patternNone')}</MenuItem>
            {PATTERN_NAMES.map((name) => (
              <MenuItem key={name} value={name}>
                {name}
              </MenuItem>
            ))}
            <MenuItem value="custom">{t('console.fields.patternCustom')}</MenuItem>
          </TextField>
          {choice === 'custom' && (
            <TextField
              size="small"
              label={t('console.fields.patternExpression')}
              value={field.pattern ?? ''}
              disabled={disabled}
              onChange={(event) => set({ pattern: event.target.value })}
              slotProps={{ htmlInput: { maxLength: FieldLimits.patternMaxLength, spellCheck: false } }}
            />
          )}
          {choice !== '' && (
            <TextField
              size="small"
              label={t('console.fields.patternMessage')}
              value={field.patternMessage ?? ''}
              placeholder={named?.message}
              disabled={disabled}
              onChange={(event) => set({ patternMessage: event.target.value })}
              slotProps={{
                htmlInput: { maxLength: FieldLimits.patternMessageMaxLength },
                inputLabel: named ? { shrink: true } : undefined,
              }}
            />
          )}
        </>
      )}
      {isChoice(kind) && (
        <TextField
          size="small"
          multiline
          minRows={2}
          maxRows={8}
          label={t('console.fields.options')}
          value={optionsText}
          disabled={disabled}
          onChange={(event) => {
            setOptionsText(event.target.value);
            const options = event.target.value
              .split('\n')
              .map((line) => line.replace(/\s+/g, ' ').trim())
              .filter(Boolean);
            // A prefilled option that is gone is no value any more.
            const value = field.value && options.includes(field.value) ? field.value : null;
            set({ options, value });
          }}
          slotProps={{ htmlInput: { 'data-testid': 'field-options' } }}
        />
      )}
      {EDITABLE_KINDS.includes(kind) && (
        <FormControlLabel
          control={
            <Checkbox
              size="small"
              checked={kind === 'name' ? field.editable === true : field.editable !== false}
              disabled={disabled}
              onChange={(event) => set({ editable: event.target.checked })}
            />
          }
          label={t('console.fields.editable')}
        />
      )}
      {PREFILL_KINDS.includes(kind) && (
        <FieldValueInput
          field={field}
          value={field.value}
          label={kind === 'checkbox' ? t('console.fields.checked') : t('console.fields.value')}
          disabled={disabled}
          testId="field-value"
          onChange={(value) => set({ value })}
        />
      )}
      {problems.length > 0 && (
        <Box data-testid="field-problems">
          {problems.map((problem) => (
            <Typography key={problem} variant="body2" color="error" data-testid="field-problem">
              {problem}
            </Typography>
          ))}
        </Box>
      )}
      <Typography variant="caption" color="text.secondary">
        {t('console.fields.keyboardHint')}
      </Typography>
      <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 1 }}>
        {onCopyToEveryPage && (
          <Button
            size="small"
            variant="outlined"
            startIcon={<ContentCopyIcon />}
            disabled={disabled}
            onClick={onCopyToEveryPage}
          >
            {t('console.fields.copyToEveryPage')}
          </Button>
        )}
        <Button size="small" color="error" startIcon={<DeleteOutlineIcon />} disabled={disabled} onClick={onRemove}>
          {t('console.fields.remove')}
        </Button>
      </Box>
    </Stack>
  );
};

export default FieldPanel;
