import LockOutlinedIcon from '@mui/icons-material/LockOutlined';
import { Alert, Avatar, Box, Button, Card, CardContent, CircularProgress, TextField, Typography } from '@mui/material';
import { useEffect, useState } from 'react';
import type { FormEvent } from 'react';
import { useLogin } from 'react-admin';
import { useLocation } from 'react-router-dom';
import { endSession } from '../authProvider';
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
    <Box
      sx={{
        minHeight: '100vh',
        display: 'flex',
        alignItems: 'center',
        justifyContent: 'center',
        p: 2,
        background: 'linear-gradient(135deg, #311B92 0%, #5E35B1 55%, #9575CD 100%)',
      }}
    >
      <Card sx={{ width: '100%', maxWidth: 380 }} elevation={8}>
        <CardContent sx={{ p: 4 }}>
          <Box sx={{ display: 'flex', flexDirection: 'column', alignItems: 'center', mb: 2 }}>
            <Avatar sx={{ bgcolor: 'primary.main', mb: 1 }}>
              <LockOutlinedIcon />
            </Avatar>
            <Typography component="h1" variant="h5">
              {t('esign.loginButton')}
            </Typography>
          </Box>
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
        </CardContent>
      </Card>
    </Box>
  );
};

export default SignIn;
