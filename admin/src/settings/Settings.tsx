import { Messages } from '@esign/contract';
import type { Organisation } from '@esign/contract';
import SaveIcon from '@mui/icons-material/Save';
import {
  Box,
  Button,
  Card,
  CardContent,
  Divider,
  FormControlLabel,
  FormHelperText,
  Slider,
  Stack,
  Switch,
  Typography,
} from '@mui/material';
import type { FormEvent, ReactNode } from 'react';
import { useEffect, useId, useMemo, useState } from 'react';
import { useNotify } from 'react-admin';
import { errorText, orgId, v1 } from '../api';
import PageHeading from '../components/PageHeading';
import WaitBackdrop from '../components/WaitBackdrop';
import { THRESHOLD, changedFields, roundThreshold, toForm, type SettingsFlag, type SettingsForm } from './form';

const organisationPath = () => `/api/organisations/${encodeURIComponent(orgId())}`;

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

/**
 * /settings (not in the specification): the organisation's identity checks for signers (face capture, the liveness
 * video and its threshold, the location check). Save sends only the fields that changed (PUT
 * /api/organisations/{orgId}); the server's answer becomes the saved state.
 */
const Settings = () => {
  const notify = useNotify();
  const [saved, setSaved] = useState<SettingsForm | null>(null);
  const [form, setForm] = useState<SettingsForm | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [busy, setBusy] = useState(true);

  useEffect(() => {
    let live = true;
    v1<Organisation>(organisationPath())
      .then((org) => {
        if (!live) return;
        setSaved(toForm(org.settings));
        setForm(toForm(org.settings));
      })
      .catch((error: unknown) => live && setLoadError(errorText(error, Messages.internalError)))
      .finally(() => live && setBusy(false));
    return () => {
      live = false;
    };
  }, []);

  const changes = useMemo(() => (saved && form ? changedFields(saved, form) : {}), [saved, form]);
  const dirty = Object.keys(changes).length > 0;

  const save = async (event: FormEvent) => {
    event.preventDefault();
    if (!dirty || busy) return;
    setBusy(true);
    try {
      const org = await v1<Organisation>(organisationPath(), { method: 'PUT', body: changes });
      setSaved(toForm(org.settings));
      setForm(toForm(org.settings));
      notify(Messages.settingsSaved, { type: 'success' });
    } catch (error) {
      notify(errorText(error, Messages.internalError), { type: 'error' });
    } finally {
      setBusy(false);
    }
  };

  const flag = (name: SettingsFlag) => ({
    checked: form?.[name] ?? false,
    onChange: (checked: boolean) => setForm((f) => f && { ...f, [name]: checked }),
  });

  return (
    <Card sx={{ my: 2 }}>
      <CardContent>
        <PageHeading title={Messages.settingsHeading} />
        {loadError && <Typography color="error">{loadError}</Typography>}
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
            <Box sx={{ display: 'flex', justifyContent: 'flex-end' }}>
              <Button type="submit" variant="contained" size="large" startIcon={<SaveIcon />} disabled={!dirty || busy}>
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
