import {
  AdminMessages,
  PASSWORD_MIN_LENGTH,
  StaffRoutes,
  formatDateTime,
  inputMessage,
  setPasswordSchema,
} from '@esign/contract';
import type { PasswordLinkView } from '@esign/contract';
import LockResetIcon from '@mui/icons-material/LockReset';
import { Alert, Box, Button, CircularProgress, TextField, Typography } from '@mui/material';
import { useEffect, useState } from 'react';
import type { FormEvent } from 'react';
import { useNavigate, useSearchParams } from 'react-router-dom';
import { errorText } from '../api';
import { HttpError, NetworkError } from '../http';
import { useMessageText, useText } from '../i18n/useText';
import PublicCard from '../components/PublicCard';
import LanguageSwitch from '../layout/LanguageSwitch';

type LinkState =
  { state: 'checking' } | { state: 'valid'; link: PasswordLinkView } | { state: 'invalid'; message: string };

const linkProblem = (error: unknown): string =>
  error instanceof NetworkError || (error instanceof HttpError && error.status >= 500)
    ? errorText(error)
    : (error instanceof HttpError && error.body?.message) || AdminMessages.passwordLinkInvalid;

async function call<T>(method: 'GET' | 'POST', url: string, body?: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers: { Accept: 'application/json', ...(body ? { 'Content-Type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
  } catch (error) {
    throw new NetworkError(error);
  }
  const parsed = (await response.json().catch(() => null)) as unknown;
  if (!response.ok) throw new HttpError(response.status, parsed as never);
  return parsed as T;
}

/**
 * /set-password?token=… (issue 22; public, no layout): where an invitation's or a password reset's link lands. It
 * says whose account the link is for (GET /consumers/password, which does not use the link), takes the password twice,
 * sets it (POST /consumers/password: the link is then used up) and goes to /sign-in, which says the password is set.
 */
const SetPassword = () => {
  const t = useText();
  const messageText = useMessageText();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const [link, setLink] = useState<LinkState>({ state: 'checking' });
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [problem, setProblem] = useState('');
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    let live = true;
    if (!token) {
      setLink({ state: 'invalid', message: AdminMessages.passwordLinkInvalid });
      return;
    }
    call<PasswordLinkView>('GET', `/consumers/password?token=${encodeURIComponent(token)}`).then(
      (view) => live && setLink({ state: 'valid', link: view }),
      (error: unknown) => live && setLink({ state: 'invalid', message: linkProblem(error) }),
    );
    return () => {
      live = false;
    };
  }, [token]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const refused = inputMessage(setPasswordSchema, { token, password });
    if (refused) return setProblem(refused);
    if (password !== repeat) return setProblem(t('console.setPassword.mismatch'));
    setProblem('');
    setBusy(true);
    try {
      await call('POST', '/consumers/password', { token, password });
      navigate(StaffRoutes.signIn, { replace: true, state: { notice: AdminMessages.passwordSet } });
    } catch (error) {
      setProblem(error instanceof HttpError && error.body?.message ? error.body.message : errorText(error));
      setBusy(false);
    }
  };

  return (
    <PublicCard
      icon={<LockResetIcon />}
      title={t('console.setPassword.title')}
      maxWidth={420}
      top={<LanguageSwitch color="primary" />}
    >
      {link.state === 'checking' && (
        <Box sx={{ display: 'flex', gap: 2, alignItems: 'center', justifyContent: 'center' }} role="status">
          <CircularProgress size={20} />
          {t('console.setPassword.checking')}
        </Box>
      )}
      {link.state === 'invalid' && (
        <Alert severity="error" data-testid="link-invalid">
          {messageText(link.message)}
        </Alert>
      )}
      {link.state === 'valid' && (
        <Box component="form" noValidate onSubmit={(event) => void submit(event)}>
          <Typography data-testid="link-account">
            {t(link.link.purpose === 'invite' ? 'console.setPassword.invite' : 'console.setPassword.reset', {
              username: link.link.username,
              organisation: link.link.organisation,
            })}
          </Typography>
          <Typography variant="caption" color="text.secondary">
            {t('console.setPassword.expires', { date: formatDateTime(link.link.expires_at) })}
          </Typography>
          <input type="text" name="username" autoComplete="username" value={link.link.username} readOnly hidden />
          <TextField
            label={t('console.setPassword.password')}
            type="password"
            autoComplete="new-password"
            fullWidth
            margin="normal"
            value={password}
            disabled={busy}
            onChange={(event) => setPassword(event.target.value)}
            helperText={t('console.setPassword.rule', { min: PASSWORD_MIN_LENGTH })}
          />
          <TextField
            label={t('console.setPassword.repeat')}
            type="password"
            autoComplete="new-password"
            fullWidth
            margin="normal"
            value={repeat}
            disabled={busy}
            onChange={(event) => setRepeat(event.target.value)}
          />
          <Typography role="alert" data-testid="password-problem" sx={{ color: 'error.main', minHeight: '1.5em' }}>
            {problem && messageText(problem)}
          </Typography>
          <Button
            type="submit"
            variant="contained"
            fullWidth
            size="large"
            disabled={busy}
            startIcon={busy ? <CircularProgress size={20} color="inherit" /> : undefined}
          >
            {t('console.setPassword.submit')}
          </Button>
        </Box>
      )}
    </PublicCard>
  );
};

export default SetPassword;
