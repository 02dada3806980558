import { SIGNER_ERASED_DATA, signerLookupSchema, inputMessage } from '@esign/contract';
import type { SignerErasureResult } from '@esign/contract';
import DeleteForeverIcon from '@mui/icons-material/DeleteForever';
import DownloadIcon from '@mui/icons-material/Download';
import {
  Alert,
  AlertTitle,
  Box,
  Button,
  Card,
  CardContent,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  TextField,
  Typography,
} from '@mui/material';
import type { FormEvent } from 'react';
import { useState } from 'react';
import { postForFile, saveFile, v1 } from '../api';
import PageHeading from '../components/PageHeading';
import { useCall } from '../components/useCall';
import type { TextKey } from '../i18n/catalogue';
import { useMessageText, useText } from '../i18n/useText';

/** What an erasure removes, each in words (the contract's list, in its order). */
const dataKey = (item: (typeof SIGNER_ERASED_DATA)[number]): TextKey => `console.signerData.data.${item}`;

/**
 * /signer-data (issue 24; administrators only, in the administration menu): one signer's data under India's DPDP Act,
 * 2023, found by e-mail address or mobile number. Export downloads the ZIP the API builds (POST /api/signers/export:
 * manifest.json and the signer's files); Erase asks first, listing what is erased and what is kept, then shows the
 * API's answer (POST /api/signers/erase). The address is checked with the API's own rule before either call.
 */
const SignerData = () => {
  const t = useText();
  const messageText = useMessageText();
  const { call, busy } = useCall();
  const [identifier, setIdentifier] = useState('');
  const [touched, setTouched] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [erased, setErased] = useState<SignerErasureResult | null>(null);
  const problem = inputMessage(signerLookupSchema, { identifier: identifier.trim() });
  const shownProblem = touched && problem ? messageText(problem) : null;

  const ready = (event?: FormEvent): boolean => {
    event?.preventDefault();
    setTouched(true);
    return !problem && !busy;
  };

  const exportData = async (event?: FormEvent) => {
    if (!ready(event)) return;
    await call(
      async () => {
        const file = await postForFile('/api/signers/export', { identifier: identifier.trim() });
        saveFile(file);
        return file;
      },
      (file) => t('console.signerData.exported', { file: file.filename }),
      { refresh: false },
    );
  };

  const erase = async () => {
    setConfirming(false);
    const answer = await call(
      () => v1<SignerErasureResult>('/api/signers/erase', { method: 'POST', body: { identifier: identifier.trim() } }),
      () => t('console.signerData.erasedTitle'),
      { refresh: false },
    );
    if (answer) setErased(answer);
  };

  return (
    <Card sx={{ my: 2 }}>
      <CardContent>
        <PageHeading title={t('console.signerData.title')} />
        <Typography color="text.secondary" sx={{ mb: 2, maxWidth: 760 }}>
          {t('console.signerData.intro')}
        </Typography>
        <Box
          component="form"
          noValidate
          onSubmit={(event: FormEvent) => void exportData(event)}
          sx={{ display: 'flex', flexWrap: 'wrap', alignItems: 'flex-start', gap: 2 }}
        >
          <TextField
            label={t('console.signerData.identifier')}
            value={identifier}
            onChange={(event) => {
              setIdentifier(event.target.value);
              setErased(null);
            }}
            onBlur={() => setTouched(identifier.trim() !== '')}
            error={Boolean(shownProblem)}
            helperText={shownProblem ?? t('console.signerData.identifierHelp')}
            autoComplete="off"
            sx={{ flex: '1 1 320px', maxWidth: 480 }}
            slotProps={{ htmlInput: { 'data-testid': 'signer-identifier' } }}
          />
          <Button type="submit" variant="contained" startIcon={<DownloadIcon />} disabled={busy} sx={{ mt: 1 }}>
            {t('console.signerData.export')}
          </Button>
          <Button
            variant="outlined"
            color="error"
            startIcon={<DeleteForeverIcon />}
            disabled={busy}
            sx={{ mt: 1 }}
            onClick={() => ready() && setConfirming(true)}
          >
            {t('console.signerData.erase')}
          </Button>
        </Box>
        {erased && (
          <Alert severity="success" sx={{ mt: 3 }} data-testid="erasure-result">
            <AlertTitle component="h2" sx={{ fontSize: '1rem' }}>
              {t('console.signerData.erasedTitle')}: {erased.identifier}
            </AlertTitle>
            <Typography variant="body2">{t('console.signerData.erasedParties', { count: erased.parties })}</Typography>
            <Typography variant="body2">
              {t('console.signerData.erasedRequests', { refIds: erased.requests.join(', ') })}
            </Typography>
            <Typography variant="body2">
              {t('console.signerData.erasedData', { data: erased.erased.map((item) => t(dataKey(item))).join(', ') })}
            </Typography>
            <Typography variant="body2">
              {t('console.signerData.erasedFiles', { count: erased.files_deleted })}
            </Typography>
            <Typography variant="body2">{messageText(erased.kept)}</Typography>
          </Alert>
        )}
      </CardContent>
      <Dialog open={confirming} onClose={() => setConfirming(false)} aria-labelledby="erase-title">
        <DialogTitle id="erase-title">
          {t('console.signerData.eraseTitle', { identifier: identifier.trim() })}
        </DialogTitle>
        <DialogContent>
          <Typography>{t('console.signerData.eraseIntro')}</Typography>
          <Box component="ul" sx={{ my: 1, pl: 2.5 }} data-testid="erase-list">
            {SIGNER_ERASED_DATA.map((item) => (
              <li key={item}>{t(dataKey(item))}</li>
            ))}
          </Box>
          <Typography>{t('signers.kept')}</Typography>
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setConfirming(false)}>{t('console.signerData.cancel')}</Button>
          <Button color="error" variant="contained" onClick={() => void erase()} data-testid="erase-confirm">
            {t('console.signerData.eraseConfirm')}
          </Button>
        </DialogActions>
      </Dialog>
    </Card>
  );
};

export default SignerData;
