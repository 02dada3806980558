import LockOutlinedIcon from '@mui/icons-material/LockOutlined';
import { Alert, Box, Button, CircularProgress, TextField, Typography } from '@mui/material';
import { useEffect, useState } from 'react';
import type { FormEvent } from 'react';
import { useLogin } from 'react-admin';
import { useLocation } from 'react-router-dom';
import { endSession } from '../authProvider';
import PublicCard from '../components/PublicCard';
import { useMessageText, useText } from '../i18n/useText';

/**
 * Staff login (/sign-in). Showing the page ends any stored session (spec section 2). A page that sends here with a
 * notice in the history state (/set-password: the password is set) shows it above the form.
 */
const SignIn = () => {
  const login = useLogin();
  const t = useText();
  const messageText = useMessageText();
  const notice = (useLocation().state as { notice?: string } | null)?.notice;
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState('');
  const [loading, setLoading] = useState(false);

  useEffect(() => {
    void endSession();
  }, []);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!username.trim() || !password) {
      setError(t('esign.loginFieldsEmpty'));
      return;
    }
    setError('');
    setLoading(true);
    try {
      await login({ username: username.trim(), password });
    } catch (failure) {
      setError(messageText(failure instanceof Error ? failure.message : t('esign.internalError')));
      setLoading(false);
    }
  };

  return (
    <PublicCard icon={<LockOutlinedIcon />} title={t('esign.loginButton')} maxWidth={380}>
      {notice && (
        <Alert severity="success" sx={{ mb: 1 }} data-testid="sign-in-notice">
          {messageText(notice)}
        </Alert>
      )}
      <Box component="form" noValidate onSubmit={(event) => void submit(event)}>
        <TextField
          label={t('esign.usernameLabel')}
          name="username"
          autoComplete="username"
          autoFocus
          fullWidth
          margin="normal"
          value={username}
          disabled={loading}
          onChange={(event) => setUsername(event.target.value)}
        />
        <TextField
          label={t('esign.passwordLabel')}
          name="password"
          type="password"
          autoComplete="current-password"
          fullWidth
          margin="normal"
          value={password}
          disabled={loading}
          onChange={(event) => setPassword(event.target.value)}
        />
        <Typography
          role="alert"
          data-testid="login-error"
          sx={{ color: 'error.main', minHeight: '1.5em', mt: 1, fontSize: 14 }}
        >
          {error}
        </Typography>
        <Button
          type="submit"
          variant="contained"
          fullWidth
          size="large"
          disabled={loading}
          sx={{ mt: 1 }}
          startIcon={loading ? <CircularProgress size={20} color="inherit" /> : undefined}
        >
          {t('esign.loginButton')}
        </Button>
      </Box>
    </PublicCard>
  );
};

export default SignIn;
