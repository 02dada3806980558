import {
  Limits,
  Messages,
  PRODUCT_LOGO_PATH,
  RecipientListMessages,
  RecipientListTexts,
  formatDateTime,
  inputMessage,
  recipientIdentifierSchema,
  recipientListStatus,
  recipientOtpSchema,
  type ErrorBody,
  type RecipientListResponse,
  type RecipientLoginResponse,
  type RecipientVerifyResponse,
} from '@esign/contract';
import {
  Box,
  Button,
  Card,
  CardContent,
  CircularProgress,
  Link,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  TextField,
  Typography,
} from '@mui/material';
import { useCallback, useEffect, useState } from 'react';
import type { FormEvent } from 'react';
import NoData from '../components/NoData';
import ClientLayout from '../layout/ClientLayout';
import { currentOrgId } from '../session';

/**
 * /list: the recipient's own list (issue 18, point 13; the specification leaves the route's purpose open). The
 * recipient gives the e-mail address or phone number their requests were sent to, enters the OTP sent there, and sees
 * those requests across organisations: the document, the organisation, when it was sent, their status, and the sign
 * link of their invitation while they may still act. Public: no staff key is sent or read, and the list token lives in
 * this tab's session storage only (never in local storage, which holds the staff session of the specification).
 */

const TOKEN_KEY = 'recipient_list_token';

interface Stored {
  token: string;
  expires_at: string;
}

const readToken = (): Stored | null => {
  try {
    const stored = JSON.parse(sessionStorage.getItem(TOKEN_KEY) ?? 'null') as Stored | null;
    return stored && Date.parse(stored.expires_at) > Date.now() ? stored : null;
  } catch {
    return null;
  }
};

class CallError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly retryAfter: number | null,
  ) {
    super(message);
  }
}

/** The three public calls; no apikey header, whatever the browser has stored. */
async function call<T>(path: string, init: { body?: unknown; token?: string } = {}): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (init.body !== undefined) headers['Content-Type'] = 'application/json';
  if (init.token) headers.Authorization = `Bearer ${init.token}`;
  let response: Response;
  try {
    response = await fetch(path, {
      method: init.body === undefined ? 'GET' : 'POST',
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
  } catch {
    throw new CallError(0, Messages.connectionFailed, null);
  }
  const body = (await response.json().catch(() => null)) as (T & Partial<ErrorBody>) | null;
  if (!response.ok) {
    const retry = Number(response.headers.get('Retry-After'));
    throw new CallError(
      response.status,
      response.status < 500 && body?.message ? body.message : Messages.internalError,
      Number.isFinite(retry) && retry > 0 ? retry : null,
    );
  }
  return body as T;
}

type Step = { kind: 'identify' } | { kind: 'verify'; id: string; identifier: string } | { kind: 'list' };

/** Seconds until `until` (ms since the epoch), ticking every second while positive. */
function useCountdown(until: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (until <= Date.now()) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [until]);
  return Math.max(0, Math.ceil((until - now) / 1000));
}

const ErrorLine = ({ text }: { text: string }) => (
  <Typography
    role="alert"
    data-testid="list-error"
    sx={{ color: 'error.main', minHeight: '1.5em', mt: 1, fontSize: 14 }}
  >
    {text}
  </Typography>
);

const ClientList = () => {
  const [step, setStep] = useState<Step>(() => (readToken() ? { kind: 'list' } : { kind: 'identify' }));
  const [identifier, setIdentifier] = useState('');
  const [otp, setOtp] = useState('');
  const [note, setNote] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const [resendAt, setResendAt] = useState(0);
  const [list, setList] = useState<RecipientListResponse | null>(null);
  const resendIn = useCountdown(resendAt);

  const fail = (failure: unknown) => {
    setError(failure instanceof Error ? failure.message : Messages.internalError);
    if (failure instanceof CallError && failure.retryAfter) setResendAt(Date.now() + failure.retryAfter * 1000);
  };

  const signOut = useCallback((message = '') => {
    sessionStorage.removeItem(TOKEN_KEY);
    setList(null);
    setOtp('');
    // The resend wait is per address: another address may ask at once.
    setResendAt(0);
    setStep({ kind: 'identify' });
    setError(message);
  }, []);

  const load = useCallback(async () => {
    const stored = readToken();
    if (!stored) return signOut(RecipientListMessages.sessionInvalid);
    setBusy(true);
    try {
      setList(await call<RecipientListResponse>('/v1/recipient/requests', { token: stored.token }));
      setError('');
    } catch (failure) {
      if (failure instanceof CallError && failure.status === 401) signOut(failure.message);
      else fail(failure);
    } finally {
      setBusy(false);
    }
  }, [signOut]);

  useEffect(() => {
    if (step.kind === 'list' && !list) void load();
  }, [step, list, load]);

  const requestOtp = async (address: string) => {
    setBusy(true);
    setError('');
    try {
      const started = await call<RecipientLoginResponse>('/v1/recipient/login', { body: { identifier: address } });
      setNote(started.message);
      setOtp('');
      setResendAt(Date.now() + started.resend_after * 1000);
      setStep({ kind: 'verify', id: started.id, identifier: address });
    } catch (failure) {
      fail(failure);
    } finally {
      setBusy(false);
    }
  };

  const submitIdentifier = (event: FormEvent) => {
    event.preventDefault();
    const address = identifier.trim();
    // The API's own check of the identifier (the contract's schema), with its message.
    const refused = inputMessage(recipientIdentifierSchema, address);
    if (refused) return setError(refused);
    void requestOtp(address);
  };

  const submitOtp = async (event: FormEvent) => {
    event.preventDefault();
    if (step.kind !== 'verify') return;
    const refused = inputMessage(recipientOtpSchema, otp);
    if (refused) return setError(refused);
    setBusy(true);
    setError('');
    try {
      const verified = await call<RecipientVerifyResponse>('/v1/recipient/verify', {
        body: { id: step.id, otp: otp.trim() },
      });
      sessionStorage.setItem(TOKEN_KEY, JSON.stringify({ token: verified.token, expires_at: verified.expires_at }));
      setList(null);
      setStep({ kind: 'list' });
    } catch (failure) {
      fail(failure);
    } finally {
      setBusy(false);
    }
  };

  return (
    <ClientLayout>
      {/* A list across organisations belongs to none of them: the product's logo, unless the client variant named
          one (client_orgId), which the layout above shows. */}
      {!currentOrgId() && (
        <Box sx={{ display: 'flex', justifyContent: 'center', mt: -2, mb: 1 }}>
          <img src={PRODUCT_LOGO_PATH} alt={Messages.organisationLogoAlt} data-testid="product-logo" height={48} />
        </Box>
      )}
      <Box sx={{ maxWidth: step.kind === 'list' ? 960 : 440, mx: 'auto', px: 2, pb: 4 }}>
        <Card elevation={2}>
          <CardContent sx={{ p: { xs: 2, sm: 4 } }}>
            <Typography component="h1" variant="h5" sx={{ mb: 2 }}>
              {RecipientListTexts.heading}
            </Typography>

            {step.kind === 'identify' && (
              <Box component="form" noValidate onSubmit={submitIdentifier}>
                <Typography color="text.secondary">{RecipientListTexts.intro}</Typography>
                <TextField
                  label={RecipientListTexts.identifierLabel}
                  name="identifier"
                  autoComplete="email"
                  autoFocus
                  fullWidth
                  margin="normal"
                  value={identifier}
                  disabled={busy}
                  onChange={(event) => setIdentifier(event.target.value)}
                />
                <ErrorLine text={error} />
                <Button
                  type="submit"
                  variant="contained"
                  fullWidth
                  size="large"
                  disabled={busy || !identifier.trim() || resendIn > 0}
                  startIcon={busy ? <CircularProgress size={20} color="inherit" /> : undefined}
                >
                  {resendIn > 0
                    ? RecipientListTexts.resendIn.replace('{seconds}', String(resendIn))
                    : RecipientListTexts.getOtp}
                </Button>
              </Box>
            )}

            {step.kind === 'verify' && (
              <Box component="form" noValidate onSubmit={(event) => void submitOtp(event)}>
                <Typography data-testid="otp-note" color="text.secondary">
                  {note}
                </Typography>
                <TextField
                  label={RecipientListTexts.otpLabel}
                  placeholder={RecipientListTexts.otpPlaceholder}
                  name="otp"
                  autoComplete="one-time-code"
                  autoFocus
                  fullWidth
                  margin="normal"
                  value={otp}
                  disabled={busy}
                  slotProps={{ htmlInput: { maxLength: Limits.otpLength, inputMode: 'numeric' } }}
                  onChange={(event) => setOtp(event.target.value.replace(/\D/g, ''))}
                />
                <ErrorLine text={error} />
                <Button
                  type="submit"
                  variant="contained"
                  fullWidth
                  size="large"
                  disabled={busy || otp.length !== Limits.otpLength}
                  startIcon={busy ? <CircularProgress size={20} color="inherit" /> : undefined}
                >
                  {RecipientListTexts.verify}
                </Button>
                <Box sx={{ display: 'flex', justifyContent: 'space-between', mt: 2, gap: 1, flexWrap: 'wrap' }}>
                  <Button disabled={busy || resendIn > 0} onClick={() => void requestOtp(step.identifier)}>
                    {resendIn > 0
                      ? RecipientListTexts.resendIn.replace('{seconds}', String(resendIn))
                      : RecipientListTexts.resend}
                  </Button>
                  <Button disabled={busy} onClick={() => signOut()}>
                    {RecipientListTexts.changeIdentifier}
                  </Button>
                </Box>
              </Box>
            )}

            {step.kind === 'list' && (
              <Box>
                <Box sx={{ display: 'flex', alignItems: 'center', gap: 2, flexWrap: 'wrap', mb: 1 }}>
                  <Typography data-testid="list-identifier" color="text.secondary" sx={{ flex: 1 }}>
                    {list ? RecipientListTexts.signedInAs.replace('{identifier}', list.identifier) : ''}
                  </Typography>
                  <Button variant="outlined" onClick={() => signOut()}>
                    {RecipientListTexts.done}
                  </Button>
                </Box>
                <ErrorLine text={error} />
                {busy && !list && <CircularProgress aria-label={Messages.pleaseWait} />}
                {list && !list.requests.length && <NoData text={RecipientListTexts.empty} />}
                {list && list.requests.length > 0 && (
                  <TableContainer sx={{ overflowX: 'auto' }}>
                    <Table size="small" data-testid="recipient-requests">
                      <TableHead>
                        <TableRow>
                          {[
                            RecipientListTexts.columnDocument,
                            RecipientListTexts.columnOrganisation,
                            RecipientListTexts.columnSent,
                            RecipientListTexts.columnStatus,
                            RecipientListTexts.columnAction,
                          ].map((name) => (
                            <TableCell key={name} sx={{ fontWeight: 600 }}>
                              {name}
                            </TableCell>
                          ))}
                        </TableRow>
                      </TableHead>
                      <TableBody>
                        {list.requests.map((row) => (
                          <TableRow key={`${row.ref_id}-${row.order}`} data-testid={`recipient-request-${row.ref_id}`}>
                            <TableCell>
                              <Typography variant="body2">{row.filename}</Typography>
                              <Typography variant="caption" color="text.secondary">
                                {RecipientListTexts.refId.replace('{refId}', String(row.ref_id))}
                              </Typography>
                            </TableCell>
                            <TableCell>{row.organisation}</TableCell>
                            <TableCell sx={{ whiteSpace: 'nowrap' }}>
                              {formatDateTime(row.sent_at, row.time_zone)}
                            </TableCell>
                            <TableCell>{recipientListStatus(row)}</TableCell>
                            <TableCell>
                              {row.sign_url ? (
                                <Link href={row.sign_url} underline="hover" sx={{ fontWeight: 600 }}>
                                  {RecipientListTexts.signLink}
                                </Link>
                              ) : (
                                '-'
                              )}
                            </TableCell>
                          </TableRow>
                        ))}
                      </TableBody>
                    </Table>
                  </TableContainer>
                )}
              </Box>
            )}
          </CardContent>
        </Card>
      </Box>
    </ClientLayout>
  );
};

export default ClientList;
