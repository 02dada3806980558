import { SIGNATURE_LEVELS } from '@esign/contract';
import type { Organisation, SignatureLevel } from '@esign/contract';
import SaveIcon from '@mui/icons-material/Save';
import { Box, Button, Card, CardContent, MenuItem, Stack, TextField, Typography } from '@mui/material';
import type { FormEvent } from 'react';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useNotify } from 'react-admin';
import { errorText, v1 } from '../api';
import PageHeading from '../components/PageHeading';
import WaitBackdrop from '../components/WaitBackdrop';
import type { TextKey } from '../i18n/catalogue';
import { useMessageText, useText } from '../i18n/useText';
import { organisationPath, useOrganisation } from '../organisation/OrganisationContext';
import {
  changedFields,
  toForm,
  validateSettings,
  type SettingsFlag,
  type SettingsForm,
  type SettingsLink,
} from './form';
import OrganisationSection from './OrganisationSection';
import RequestDefaults from './RequestDefaults';
import RetentionSection from './RetentionSection';
import { INDENT, LinkRow, Section, SwitchRow, ThresholdRow, TimeZoneRow } from './rows';
import SealSection from './SealSection';

/**
 * /settings (administrators; not in the specification): the organisation (name, logo, mode, signature types), what a
 * request starts with (reminder, expiry), how long ended requests keep their files (retention, issue 24), the identity
 * checks for signers (face capture, the liveness video and its threshold, the location check), the DSC panel's links,
 * the signature level, the time zone of every time shown, and the seal certificate. Save sends only the fields that changed (PUT /api/organisations/{orgId}), once every field
 * reads right; the server's answer becomes the saved state, for every page (OrganisationProvider). The logo and the
 * seal are sent on their own, at once.
 */
const Settings = () => {
  const t = useText();
  const messageText = useMessageText();
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

  // The shared settings as read (or saved); the page's edits start from them. A logo upload changes the organisation
  // too: the edits in progress stay on top of what it answers.
  const savedRef = useRef<SettingsForm | null>(null);
  useEffect(() => {
    if (!organisation || reading) return;
    const next = toForm(organisation);
    const before = savedRef.current;
    savedRef.current = next;
    setSaved(next);
    setForm((current) => (current && before ? { ...next, ...editsOf(before, current) } : next));
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
      // The mode labels the dashboard, which reads it from local storage (spec section 3).
      if (changes.mode) localStorage.setItem('status', org.mode);
      setOrganisation(org);
      notify(t('esign.settingsSaved'), { type: 'success' });
    } catch (error) {
      notify(messageText(errorText(error, t('esign.internalError'))), { type: 'error' });
    } finally {
      setSaving(false);
    }
  };

  const patch = (next: Partial<SettingsForm>) => setForm((f) => f && { ...f, ...next });
  const flag = (name: SettingsFlag) => ({
    checked: form?.[name] ?? false,
    onChange: (checked: boolean) => patch({ [name]: checked }),
  });
  const link = (name: SettingsLink) => ({
    value: form?.[name] ?? '',
    problem: problems[name] && messageText(problems[name]),
    onChange: (value: string) => patch({ [name]: value }),
  });

  return (
    <Card sx={{ my: 2 }}>
      <CardContent>
        <PageHeading title={t('esign.settingsHeading')} />
        {loadError !== null && !organisation && (
          <Typography color="error">{messageText(errorText(loadError, t('esign.internalError')))}</Typography>
        )}
        {form && organisation && (
          <Box component="form" noValidate onSubmit={(e: FormEvent) => void save(e)}>
            <OrganisationSection organisation={organisation} form={form} problems={problems} onChange={patch} />
            <RequestDefaults form={form} problems={problems} onChange={patch} />
            <RetentionSection form={form} problems={problems} onChange={patch} />
            <Section title={t('esign.settingsIdentitySection')} intro={t('esign.settingsIdentityIntro')}>
              <SwitchRow
                label={t('esign.settingsFaceCapture')}
                help={t('esign.settingsFaceCaptureHelp')}
                {...flag('face_capture')}
              />
              <SwitchRow
                label={t('esign.settingsAadhaarFaceCapture')}
                help={t('esign.settingsAadhaarFaceCaptureHelp')}
                {...flag('aadhaar_face_capture')}
              />
              <SwitchRow
                label={t('esign.settingsEsignatureFaceCapture')}
                help={t('esign.settingsEsignatureFaceCaptureHelp')}
                {...flag('esignature_face_capture')}
              />
              <Stack spacing={2}>
                <SwitchRow
                  label={t('esign.settingsLiveVideo')}
                  help={t('esign.settingsLiveVideoHelp')}
                  {...flag('live_video')}
                />
                <ThresholdRow
                  value={form.live_video_threshold}
                  disabled={!form.live_video}
                  onChange={(value) => patch({ live_video_threshold: value })}
                />
              </Stack>
              <Stack spacing={2}>
                <SwitchRow
                  label={t('esign.settingsLocationCapture')}
                  help={t('esign.settingsLocationCaptureHelp')}
                  {...flag('location_capture')}
                />
                <Box sx={{ pl: INDENT }}>
                  <SwitchRow
                    label={t('esign.settingsAllowSigningFromIndia')}
                    help={t('esign.settingsAllowSigningFromIndiaHelp')}
                    note={form.location_capture ? undefined : t('esign.settingsAllowSigningFromIndiaOff')}
                    disabled={!form.location_capture}
                    {...flag('allow_signing_from_india')}
                  />
                </Box>
              </Stack>
            </Section>
            <Section title={t('esign.settingsDscSection')} intro={t('esign.settingsDscIntro')}>
              <LinkRow
                label={t('esign.settingsDscDownloadUrl')}
                help={t('esign.settingsDscDownloadUrlHelp')}
                {...link('dsc_download_url')}
              />
              <LinkRow
                label={t('esign.settingsDscTutorialUrl')}
                help={t('esign.settingsDscTutorialUrlHelp')}
                {...link('dsc_tutorial_url')}
              />
            </Section>
            <Section title={t('esign.settingsSignatureSection')} intro={t('esign.settingsSignatureIntro')}>
              <TextField
                select
                label={t('esign.settingsSignatureLevel')}
                value={form.signature_level}
                onChange={(event) => patch({ signature_level: event.target.value as SignatureLevel })}
                helperText={t(`esign.settingsSignatureLevelHelp.${form.signature_level}` as TextKey)}
                sx={{ maxWidth: 420 }}
              >
                {SIGNATURE_LEVELS.map((level) => (
                  <MenuItem key={level} value={level}>
                    {level}
                  </MenuItem>
                ))}
              </TextField>
            </Section>
            <Section title={t('esign.settingsTimeSection')} intro={t('esign.settingsTimeIntro')}>
              <TimeZoneRow
                value={form.time_zone}
                problem={problems.time_zone && messageText(problems.time_zone)}
                onChange={(zone) => patch({ time_zone: zone })}
              />
            </Section>
            <Box sx={{ display: 'flex', justifyContent: 'flex-end', mb: 3 }}>
              <Button
                type="submit"
                variant="contained"
                size="large"
                startIcon={<SaveIcon />}
                disabled={!dirty || !valid || busy}
              >
                {t('esign.settingsSave')}
              </Button>
            </Box>
          </Box>
        )}
        {organisation && <SealSection />}
      </CardContent>
      <WaitBackdrop open={busy} text={t('esign.pleaseWait')} />
    </Card>
  );
};

/** The edits made on top of a saved state (kept when the organisation changes under them, e.g. a logo upload). */
const editsOf = (was: SettingsForm, current: SettingsForm): Partial<SettingsForm> =>
  Object.fromEntries(
    (Object.keys(current) as (keyof SettingsForm)[])
      .filter((key) => JSON.stringify(current[key]) !== JSON.stringify(was[key]))
      .map((key) => [key, current[key]]),
  ) as Partial<SettingsForm>;

export default Settings;
