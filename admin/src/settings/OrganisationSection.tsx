import { LOGO_MAX_BYTES, LOGO_TYPES, ORG_MODES, SIGNATURE_TYPES, logoPath } from '@esign/contract';
import type { OrgMode, Organisation } from '@esign/contract';
import UploadIcon from '@mui/icons-material/Upload';
import {
  Box,
  Checkbox,
  FormControl,
  FormControlLabel,
  FormGroup,
  FormHelperText,
  FormLabel,
  MenuItem,
  TextField,
  Typography,
} from '@mui/material';
import { useId } from 'react';
import { useDataProvider } from 'react-admin';
import FileButton from '../components/FileButton';
import { useCall } from '../components/useCall';
import { orgId } from '../api';
import type { ConsoleDataProvider } from '../dataProvider';
import type { TextKey } from '../i18n/catalogue';
import { useMessageText, useText } from '../i18n/useText';
import { useOrganisation } from '../organisation/OrganisationContext';
import type { SettingsForm, SettingsProblems } from './form';
import { Section } from './rows';

/**
 * The logo: the current one and an upload (PNG, JPEG or SVG of at most 1 MB, checked by the API by content; its
 * refusal is shown as it says). Uploaded at once, apart from Save; the top bar shows the new logo.
 */
const LogoRow = ({ organisation }: { organisation: Organisation }) => {
  const t = useText();
  const dataProvider = useDataProvider<ConsoleDataProvider>();
  const { setOrganisation, logoVersion, logoChanged } = useOrganisation();
  const { call, busy } = useCall();
  const helpId = useId();
  const upload = async (file: File) => {
    const organisation = await call(
      () => dataProvider.uploadLogo(orgId(), file),
      () => t('console.organisation.logoSaved'),
      {
        refresh: false,
      },
    );
    if (!organisation) return;
    setOrganisation(organisation);
    logoChanged();
  };
  return (
    <Box>
      <Typography component="h3" variant="subtitle1">
        {t('console.organisation.logo')}
      </Typography>
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 2, flexWrap: 'wrap', my: 1 }}>
        {organisation.settings.has_logo ? (
          <Box
            component="img"
            src={`${logoPath(organisation.id)}${logoVersion ? `?v=${logoVersion}` : ''}`}
            alt={t('esign.organisationLogoAlt')}
            data-testid="settings-logo"
            sx={{ height: 48, maxWidth: 200, objectFit: 'contain', border: 1, borderColor: 'divider', p: 0.5 }}
          />
        ) : (
          <Typography variant="body2" color="text.secondary">
            {t('console.organisation.logoNone')}
          </Typography>
        )}
        <FileButton
          label={t('console.organisation.logoChoose')}
          accept={LOGO_TYPES.join(',')}
          icon={<UploadIcon />}
          disabled={busy}
          inputTestId="logo-input"
          describedBy={helpId}
          onFile={(file) => file && void upload(file)}
        />
      </Box>
      <FormHelperText id={helpId} sx={{ mx: 0 }} data-max-bytes={LOGO_MAX_BYTES}>
        {t('console.organisation.logoHelp')}
      </FormHelperText>
    </Box>
  );
};

/** The organisation's name, logo, mode and the signature types its staff may choose. */
const OrganisationSection = ({
  organisation,
  form,
  problems,
  onChange,
}: {
  organisation: Organisation;
  form: SettingsForm;
  problems: SettingsProblems;
  onChange: (patch: Partial<SettingsForm>) => void;
}) => {
  const t = useText();
  const messageText = useMessageText();
  const typesId = useId();
  const toggleType = (type: string, on: boolean) =>
    onChange({
      signature_types: on
        ? SIGNATURE_TYPES.filter((x) => x === type || form.signature_types.includes(x))
        : form.signature_types.filter((x) => x !== type),
    });
  return (
    <Section title={t('console.organisation.section')} intro={t('console.organisation.intro')} testId="organisation">
      <TextField
        label={t('console.organisation.name')}
        value={form.name}
        onChange={(event) => onChange({ name: event.target.value })}
        error={Boolean(problems.name)}
        helperText={problems.name ? messageText(problems.name) : ' '}
        slotProps={{ htmlInput: { maxLength: 200 } }}
        sx={{ maxWidth: 420 }}
      />
      <LogoRow organisation={organisation} />
      <TextField
        select
        label={t('console.organisation.mode')}
        value={form.mode}
        onChange={(event) => onChange({ mode: event.target.value as OrgMode })}
        helperText={t('console.organisation.modeHelp')}
        sx={{ maxWidth: 420 }}
      >
        {ORG_MODES.map((mode) => (
          <MenuItem key={mode} value={mode}>
            {t(`console.organisation.modes.${mode}` as TextKey)}
          </MenuItem>
        ))}
      </TextField>
      <FormControl component="fieldset" error={Boolean(problems.signature_types)} aria-describedby={typesId}>
        <FormLabel component="legend">{t('console.organisation.signatureTypes')}</FormLabel>
        <FormGroup row>
          {SIGNATURE_TYPES.map((type) => (
            <FormControlLabel
              key={type}
              label={type}
              control={
                <Checkbox
                  checked={form.signature_types.includes(type)}
                  onChange={(event) => toggleType(type, event.target.checked)}
                />
              }
            />
          ))}
        </FormGroup>
        <FormHelperText id={typesId} sx={{ mx: 0 }}>
          {problems.signature_types
            ? t(problems.signature_types as TextKey)
            : t('console.organisation.signatureTypesHelp')}
        </FormHelperText>
      </FormControl>
    </Section>
  );
};

export default OrganisationSection;
