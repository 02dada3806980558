import { AdminMessages, SEAL_EXPIRY_WARNING_DAYS } from '@esign/contract';
import type { SealCertificateInfo } from '@esign/contract';
import { Alert, Box, Button, CircularProgress, TextField, Typography } from '@mui/material';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { FormEvent } from 'react';
import { useState } from 'react';
import { useDataProvider, useNotify } from 'react-admin';
import { failureText, orgId } from '../api';
import FileButton from '../components/FileButton';
import type { ConsoleDataProvider } from '../dataProvider';
import type { TextKey } from '../i18n/catalogue';
import { useMessageText, useText } from '../i18n/useText';
import { useFormatTime } from '../organisation/OrganisationContext';
import { Section } from './rows';

/** The certificate in force: subject, issuer, serial, validity, where it came from; a warning when it nears its end. */
const SealInfo = ({ seal }: { seal: SealCertificateInfo }) => {
  const t = useText();
  const formatTime = useFormatTime();
  const rows: [TextKey, string][] = [
    ['console.organisation.subject', seal.subject],
    ['console.organisation.issuer', seal.issuer],
    ['console.organisation.serial', seal.serial],
    ['console.organisation.validFrom', formatTime(seal.not_before)],
    ['console.organisation.validUntil', formatTime(seal.not_after)],
  ];
  return (
    <Box data-testid="seal-info" data-source={seal.source}>
      {seal.expired && (
        <Alert severity="error" role="status" sx={{ mb: 1 }} data-testid="seal-expired">
          {t('console.organisation.expired', { date: formatTime(seal.not_after) })}
        </Alert>
      )}
      {seal.expiring_soon && !seal.expired && (
        <Alert severity="warning" role="status" sx={{ mb: 1 }} data-testid="seal-expiring">
          {t('admin.sealExpiringSoon', { date: formatTime(seal.not_after) })}
        </Alert>
      )}
      <Box
        component="dl"
        sx={{ display: 'grid', gridTemplateColumns: 'max-content 1fr', columnGap: 2, rowGap: 0.5, m: 0 }}
      >
        {rows.map(([key, value]) => (
          <Box key={key} sx={{ display: 'contents' }}>
            <Typography component="dt" color="text.secondary">
              {t(key)}
            </Typography>
            <Typography
              component="dd"
              sx={{ m: 0, overflowWrap: 'anywhere' }}
              data-testid={`seal-${key.split('.').pop()}`}
            >
              {value}
            </Typography>
          </Box>
        ))}
      </Box>
      <Typography variant="body2" color="text.secondary" sx={{ mt: 1 }}>
        {t(`console.organisation.sources.${seal.source}` as TextKey)}
        {!seal.expired && ` · ${t('console.organisation.daysLeft', { days: seal.days_left })}`}
      </Typography>
    </Box>
  );
};

/**
 * The seal certificate (administrators): what seals the organisation's documents now (GET
 * /api/organisations/{orgId}/seal), a warning SEAL_EXPIRY_WARNING_DAYS days before it expires, and the import of a
 * PKCS#12 with its password (PUT, multipart); a refusal is the API's message, and changes nothing.
 */
const SealSection = () => {
  const t = useText();
  const messageText = useMessageText();
  const notify = useNotify();
  const dataProvider = useDataProvider<ConsoleDataProvider>();
  const queryClient = useQueryClient();
  const { data: seal, error } = useQuery({
    queryKey: ['seal', orgId()],
    queryFn: () => dataProvider.sealInfo(orgId()),
  });
  const [file, setFile] = useState<File | null>(null);
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState('');

  const importSeal = async (event: FormEvent) => {
    event.preventDefault();
    if (!file) return setProblem(messageText(AdminMessages.sealFileMissing));
    setBusy(true);
    setProblem('');
    try {
      const imported = await dataProvider.importSeal(orgId(), file, password);
      queryClient.setQueryData(['seal', orgId()], imported);
      notify(t('admin.sealImported', { subject: imported.subject }), { type: 'success' });
      setFile(null);
      setPassword('');
    } catch (failure) {
      setProblem(messageText(failureText(failure)));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Section title={t('console.organisation.sealSection')} intro={t('console.organisation.sealIntro')} testId="seal">
      {error ? <Alert severity="error">{messageText(failureText(error))}</Alert> : null}
      {seal ? (
        <SealInfo seal={seal} />
      ) : (
        !error && <CircularProgress size={24} aria-label={t('console.organisation.sealSection')} />
      )}
      <Box
        component="form"
        noValidate
        onSubmit={(event: FormEvent) => void importSeal(event)}
        sx={{ display: 'flex', flexWrap: 'wrap', alignItems: 'flex-start', gap: 2 }}
        data-warning-days={SEAL_EXPIRY_WARNING_DAYS}
      >
        <Box>
          <FileButton
            label={t('console.organisation.p12File')}
            accept=".p12,.pfx,application/x-pkcs12"
            inputTestId="p12-input"
            onFile={(chosen) => {
              setFile(chosen);
              setProblem('');
            }}
          />
          <Typography variant="body2" color="text.secondary" sx={{ mt: 0.5 }} data-testid="p12-name">
            {file?.name ?? t('console.organisation.p12None')}
          </Typography>
        </Box>
        <TextField
          label={t('console.organisation.p12Password')}
          type="password"
          autoComplete="off"
          size="small"
          value={password}
          onChange={(event) => setPassword(event.target.value)}
        />
        <Button
          type="submit"
          variant="contained"
          disabled={busy}
          startIcon={busy ? <CircularProgress size={18} color="inherit" /> : undefined}
        >
          {t('console.organisation.import')}
        </Button>
      </Box>
      <Typography role="alert" color="error" sx={{ minHeight: '1.5em' }} data-testid="seal-problem">
        {problem}
      </Typography>
    </Section>
  );
};

export default SealSection;
