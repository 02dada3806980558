import { Messages, SIGNATURE_LEVELS, formatDateTime } from '@esign/contract';
import type { Organisation, SignatureLevel } from '@esign/contract';
import SaveIcon from '@mui/icons-material/Save';
import {
  Autocomplete,
  Box,
  Button,
  Card,
  CardContent,
  Divider,
  FormControlLabel,
  FormHelperText,
  MenuItem,
  Slider,
  Stack,
  Switch,
  TextField,
  Typography,
} from '@mui/material';
import type { FormEvent, ReactNode } from 'react';
import { useEffect, useId, useMemo, useState } from 'react';
import { useNotify } from 'react-admin';
import { errorText, v1 } from '../api';
import PageHeading from '../components/PageHeading';
import WaitBackdrop from '../components/WaitBackdrop';
import { organisationPath, useOrganisation } from '../organisation/OrganisationContext';
import { fill } from '../requests/placement/geometry';
import {
  THRESHOLD,
  changedFields,
  roundThreshold,
  timeZoneOptions,
  toForm,
  validateSettings,
  type SettingsFlag,
  type SettingsForm,
  type SettingsLink,
} from './form';

/**
 * Where a switch's label starts (the switch is 58 px wide, FormControlLabel pulls it 11 px left): helper texts and the
 * settings that depend on a switch line up with it. Padding, not margin: Stack resets its children's margins.
 */
const INDENT = '47px';

/** One setting: a switch, its label and what it does for the signer. */
const SwitchRow = ({
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

const ThresholdRow = ({
  value,
  disabled,
  onChange,
}: {
  value: number;
  disabled: boolean;
  onChange: (value: number) => void;
}) => {
  const labelId = useId();
  const helpId = useId();
  return (
    <Box sx={{ pl: INDENT }} data-testid="threshold">
      <Box sx={{ display: 'flex', gap: 1, color: disabled ? 'text.disabled' : 'text.primary' }}>
        <Typography id={labelId}>{Messages.settingsLiveVideoThreshold}</Typography>
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
        {Messages.settingsLiveVideoThresholdHelp}
        {disabled && ` ${Messages.settingsLiveVideoThresholdOff}`}
      </FormHelperText>
    </Box>
  );
};

const Section = ({ title, intro, children }: { title: string; intro: string; children: ReactNode }) => (
  <Box component="section" sx={{ mb: 3 }}>
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
const LinkRow = ({
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
const TimeZoneRow = ({
  value,
  problem,
  onChange,
}: {
  value: string;
  problem?: string;
  onChange: (value: string) => void;
}) => {
  const options = useMemo(() => timeZoneOptions(value), [value]);
  const example = problem ? '' : fill(Messages.settingsTimeZoneExample, { time: formatDateTime(new Date(), value) });
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
          label={Messages.settingsTimeZone}
          error={Boolean(problem)}
          helperText={problem ?? example}
          slotProps={{ formHelperText: { 'data-testid': 'time-zone-example' } as object }}
        />
      )}
    />
  );
};

/**
 * /settings (not in the specification): the organisation's identity checks for signers (face capture, the liveness
 * video and its threshold, the location check), the DSC panel's signer-app and tutorial links, and the time zone of
 * every time shown. Save sends only the fields that changed (PUT /api/organisations/{orgId}), once every field reads
 * right; the server's answer becomes the saved state, for every page (OrganisationProvider).
 */
const Settings = () => {
  const notify = useNotify();
  const { organisation, error: loadError, setOrganisation, refresh } = useOrganisation();
  const [saved, setSaved] = useState<SettingsForm | null>(null);
  const [form, setForm] = useState<SettingsForm | null>(null);
  const [saving, setSaving] = useState(false);
  const [reading, setReading] = useState(true);

  // The page edits the settings: it reads them afresh rather than trust the copy read at sign-in.
  useEffect(() => {
    void refresh().finally(() => setReading(false));
  }, [refresh]);

  // The shared settings as read (or saved); the page's edits start from them.
  useEffect(() => {
    if (!organisation || reading) return;
    setSaved(toForm(organisation.settings));
    setForm(toForm(organisation.settings));
  }, [organisation, reading]);

  const changes = useMemo(() => (saved && form ? changedFields(saved, form) : {}), [saved, form]);
  const problems = useMemo(() => (form ? validateSettings(form) : {}), [form]);
  const dirty = Object.keys(changes).length > 0;
  const valid = Object.keys(problems).length === 0;
  const busy = saving || reading;

  const save = async (event: FormEvent) => {
    event.preventDefault();
    if (!dirty || !valid || busy) return;
    setSaving(true);
    try {
      const org = await v1<Organisation>(organisationPath(), { method: 'PUT', body: changes });
      setOrganisation(org);
      notify(Messages.settingsSaved, { type: 'success' });
    } catch (error) {
      notify(errorText(error, Messages.internalError), { type: 'error' });
    } finally {
      setSaving(false);
    }
  };

  const flag = (name: SettingsFlag) => ({
    checked: form?.[name] ?? false,
    onChange: (checked: boolean) => setForm((f) => f && { ...f, [name]: checked }),
  });
  const link = (name: SettingsLink) => ({
    value: form?.[name] ?? '',
    problem: problems[name],
    onChange: (value: string) => setForm((f) => f && { ...f, [name]: value }),
  });

  return (
    <Card sx={{ my: 2 }}>
      <CardContent>
        <PageHeading title={Messages.settingsHeading} />
        {loadError !== null && !organisation && (
          <Typography color="error">{errorText(loadError, Messages.internalError)}</Typography>
        )}
        {form && (
          <Box component="form" noValidate onSubmit={(e: FormEvent) => void save(e)}>
            <Section title={Messages.settingsIdentitySection} intro={Messages.settingsIdentityIntro}>
              <SwitchRow
                label={Messages.settingsFaceCapture}
                help={Messages.settingsFaceCaptureHelp}
                {...flag('face_capture')}
              />
              <SwitchRow
                label={Messages.settingsAadhaarFaceCapture}
                help={Messages.settingsAadhaarFaceCaptureHelp}
                {...flag('aadhaar_face_capture')}
              />
              <SwitchRow
                label={Messages.settingsEsignatureFaceCapture}
                help={Messages.settingsEsignatureFaceCaptureHelp}
                {...flag('esignature_face_capture')}
              />
              <Stack spacing={2}>
                <SwitchRow
                  label={Messages.settingsLiveVideo}
                  help={Messages.settingsLiveVideoHelp}
                  {...flag('live_video')}
                />
                <ThresholdRow
                  value={form.live_video_threshold}
                  disabled={!form.live_video}
                  onChange={(value) => setForm((f) => f && { ...f, live_video_threshold: value })}
                />
              </Stack>
              <Stack spacing={2}>
                <SwitchRow
                  label={Messages.settingsLocationCapture}
                  help={Messages.settingsLocationCaptureHelp}
                  {...flag('location_capture')}
                />
                <Box sx={{ pl: INDENT }}>
                  <SwitchRow
                    label={Messages.settingsAllowSigningFromIndia}
                    help={Messages.settingsAllowSigningFromIndiaHelp}
                    note={form.location_capture ? undefined : Messages.settingsAllowSigningFromIndiaOff}
                    disabled={!form.location_capture}
                    {...flag('allow_signing_from_india')}
                  />
                </Box>
              </Stack>
            </Section>
            <Section title={Messages.settingsDscSection} intro={Messages.settingsDscIntro}>
              <LinkRow
                label={Messages.settingsDscDownloadUrl}
                help={Messages.settingsDscDownloadUrlHelp}
                {...link('dsc_download_url')}
              />
              <LinkRow
                label={Messages.settingsDscTutorialUrl}
                help={Messages.settingsDscTutorialUrlHelp}
                {...link('dsc_tutorial_url')}
              />
            </Section>
            <Section title={Messages.settingsSignatureSection} intro={Messages.settingsSignatureIntro}>
              <TextField
                select
                label={Messages.settingsSignatureLevel}
                value={form.signature_level}
                onChange={(event) =>
                  setForm((f) => f && { ...f, signature_level: event.target.value as SignatureLevel })
                }
                helperText={Messages.settingsSignatureLevelHelp[form.signature_level]}
                sx={{ maxWidth: 420 }}
              >
                {SIGNATURE_LEVELS.map((level) => (
                  <MenuItem key={level} value={level}>
                    {level}
                  </MenuItem>
                ))}
              </TextField>
            </Section>
            <Section title={Messages.settingsTimeSection} intro={Messages.settingsTimeIntro}>
              <TimeZoneRow
                value={form.time_zone}
                problem={problems.time_zone}
                onChange={(zone) => setForm((f) => f && { ...f, time_zone: zone })}
              />
            </Section>
            <Box sx={{ display: 'flex', justifyContent: 'flex-end' }}>
              <Button
                type="submit"
                variant="contained"
                size="large"
                startIcon={<SaveIcon />}
                disabled={!dirty || !valid || busy}
              >
                {Messages.settingsSave}
              </Button>
            </Box>
          </Box>
        )}
      </CardContent>
      <WaitBackdrop open={busy} />
    </Card>
  );
};

export default Settings;
