import { formatDateTime } from '@esign/contract';
import {
  Autocomplete,
  Box,
  Divider,
  FormControlLabel,
  FormHelperText,
  Slider,
  Stack,
  Switch,
  TextField,
  Typography,
} from '@mui/material';
import type { ReactNode } from 'react';
import { useId, useMemo } from 'react';
import { useText } from '../i18n/useText';
import { THRESHOLD, roundThreshold, timeZoneOptions } from './form';

/**
 * Where a switch's label starts (the switch is 58 px wide, FormControlLabel pulls it 11 px left): helper texts and the
 * settings that depend on a switch line up with it. Padding, not margin: Stack resets its children's margins.
 */
export const INDENT = '47px';

/** One setting: a switch, its label and what it does for the signer. */
export const SwitchRow = ({
  label,
  help,
  note,
  checked,
  disabled,
  onChange,
}: {
  label: string;
  help: string;
  note?: string;
  checked: boolean;
  disabled?: boolean;
  onChange: (checked: boolean) => void;
}) => {
  const helpId = useId();
  return (
    <Box>
      <FormControlLabel
        disabled={disabled}
        control={
          <Switch
            checked={checked}
            onChange={(e) => onChange(e.target.checked)}
            slotProps={{ input: { 'aria-describedby': helpId } }}
          />
        }
        label={label}
      />
      <FormHelperText id={helpId} sx={{ mx: 0, mt: 0, pl: INDENT }}>
        {help}
        {note && ` ${note}`}
      </FormHelperText>
    </Box>
  );
};

export const ThresholdRow = ({
  value,
  disabled,
  onChange,
}: {
  value: number;
  disabled: boolean;
  onChange: (value: number) => void;
}) => {
  const t = useText();
  const labelId = useId();
  const helpId = useId();
  return (
    <Box sx={{ pl: INDENT }} data-testid="threshold">
      {/* Disabled, the label and the value read in the secondary grey: the disabled grey is too faint (WCAG 1.4.3). */}
      <Box sx={{ display: 'flex', gap: 1, color: disabled ? 'text.secondary' : 'text.primary' }}>
        <Typography id={labelId}>{t('esign.settingsLiveVideoThreshold')}</Typography>
        <Typography sx={{ fontWeight: 700 }} data-testid="threshold-value">
          {value.toFixed(2)}
        </Typography>
      </Box>
      <Slider
        aria-labelledby={labelId}
        sx={{ maxWidth: 420, display: 'block' }}
        value={value}
        min={THRESHOLD.min}
        max={THRESHOLD.max}
        step={THRESHOLD.step}
        marks={[THRESHOLD.min, THRESHOLD.default, THRESHOLD.max].map((v) => ({ value: v, label: String(v) }))}
        valueLabelDisplay="auto"
        disabled={disabled}
        onChange={(_e, next) => onChange(roundThreshold(next as number))}
        slotProps={{ input: { 'aria-describedby': helpId } }}
      />
      <FormHelperText id={helpId} sx={{ mx: 0, mt: 0 }}>
        {t('esign.settingsLiveVideoThresholdHelp')}
        {disabled && ` ${t('esign.settingsLiveVideoThresholdOff')}`}
      </FormHelperText>
    </Box>
  );
};

/** A part of the settings: its heading (h2), what it is about, its rows one under the other. */
export const Section = ({
  title,
  intro,
  children,
  testId,
}: {
  title: string;
  intro: string;
  children: ReactNode;
  testId?: string;
}) => (
  <Box component="section" sx={{ mb: 3 }} data-testid={testId}>
    <Typography component="h2" variant="h6">
      {title}
    </Typography>
    <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
      {intro}
    </Typography>
    <Stack spacing={2} divider={<Divider flexItem />}>
      {children}
    </Stack>
  </Box>
);

/** A link of the DSC panel: a web address, or nothing. */
export const LinkRow = ({
  label,
  help,
  value,
  problem,
  onChange,
}: {
  label: string;
  help: string;
  value: string;
  problem?: string;
  onChange: (value: string) => void;
}) => (
  <TextField
    label={label}
    value={value}
    type="url"
    inputMode="url"
    placeholder="https://"
    fullWidth
    error={Boolean(problem)}
    helperText={problem ?? help}
    onChange={(e) => onChange(e.target.value)}
    slotProps={{ htmlInput: { maxLength: 2048, spellCheck: false } }}
    sx={{ maxWidth: 640 }}
  />
);

/** The time zone every time is written in, picked from the browser's list, with what a time looks like in it now. */
export const TimeZoneRow = ({
  value,
  problem,
  onChange,
}: {
  value: string;
  problem?: string;
  onChange: (value: string) => void;
}) => {
  const t = useText();
  const options = useMemo(() => timeZoneOptions(value), [value]);
  const example = problem ? '' : t('esign.settingsTimeZoneExample', { time: formatDateTime(new Date(), value) });
  return (
    <Autocomplete
      options={options}
      value={value || null}
      onChange={(_event, zone) => onChange(zone ?? '')}
      autoHighlight
      sx={{ maxWidth: 420 }}
      renderInput={(params) => (
        <TextField
          {...params}
          label={t('esign.settingsTimeZone')}
          error={Boolean(problem)}
          helperText={problem ?? example}
          slotProps={{ formHelperText: { 'data-testid': 'time-zone-example' } as object }}
        />
      )}
    />
  );
};
