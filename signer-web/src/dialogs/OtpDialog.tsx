import { Limits, Messages, checkInput, signerOtpSchema } from '@esign/contract';
import type { SendOtpResponse, VerifyOtpResponse } from '@esign/contract';
import { useEffect, useId, useRef, useState } from 'react';
import type { FormEvent } from 'react';
import { ApiError, keepSignerSession, serverMessage, signerFetch } from '../api';
import { Button, Dialog, useToast } from '../components';
import { useI18n } from '../i18n';
import { useStableCallback } from './hooks';

export type OtpFlow = 'initial' | 'esignature';

/** An OTP already sent and still usable: its id, and when (this browser's clock) a new one may be asked for. */
export interface SentOtp {
  userId: string;
  resendAt: number;
}

export interface OtpDialogProps {
  open: boolean;
  orgId: string;
  refId: number | string;
  order: number | string;
  /** 'initial': before the document is shown; 'esignature': before an electronic signature (generic error texts). */
  flow: OtpFlow;
  /** Called Limits.otpRedirectMs after 'Verified!' (this tab then holds the signer session). */
  onVerified: () => void;
  onClose: () => void;
  /** The OTP already sent (after a reload: from the server's time): 'Verify OTP' stays reachable with its code. */
  sent?: SentOtp | null;
  /** A new OTP was sent (the page keeps it for the next time the dialog opens). */
  onSent?: (sent: SentOtp) => void;
}

type Outcome = 'verified' | 'expired' | 'invalid' | null;

/** What a 401 or 429 answer says: status.statusMessage (spec section 7) or the message. */
const statusMessage = (error: ApiError): string =>
  error.body?.status?.statusMessage ?? error.body?.message ?? Messages.otpErrorEsignature;

/**
 * The OTP dialog (spec section 4): 'Request OTP' (GET OTP), then 'Verify OTP' (the code, VERIFY, Resend OTP after the
 * server's wait). 'Verified!' and 'Redirecting to eSign...', then onVerified after Limits.otpRedirectMs.
 */
export const OtpDialog = (props: OtpDialogProps) => (props.open ? <OtpBody {...props} /> : null);

const OtpBody = ({ orgId, refId, order, flow, onVerified, onClose, sent: earlier, onSent }: OtpDialogProps) => {
  const toast = useToast();
  const { t, known, language } = useI18n();
  const [userId, setUserId] = useState<string | null>(null);
  const [otp, setOtp] = useState('');
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>(null);
  const [resendAt, setResendAt] = useState(0);
  const [now, setNow] = useState(() => Date.now());
  const [popup, setPopup] = useState<string | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const formId = useId();
  const messageId = useId();
  const step = userId ? 'verify' : 'request';
  const done = outcome === 'verified';
  // Escape reaches both dialogs: while the popup is up, it closes only the popup.
  const close = useStableCallback(() => {
    if (!popup) onClose();
  });
  // The button that led to the popup is disabled while its call runs, so the focus is given back to it by hand.
  const trigger = useRef<HTMLElement | null>(null);
  const closePopup = useStableCallback(() => {
    setPopup(null);
    setTimeout(() => trigger.current?.focus());
  });
  const proceed = useStableCallback(onVerified);

  const wait = Math.max(0, Math.ceil((resendAt - now) / 1000));
  useEffect(() => {
    if (!wait) return;
    const timer = setTimeout(() => setNow(Date.now()), (resendAt - Date.now()) % 1000 || 1000);
    return () => clearTimeout(timer);
  }, [now, wait, resendAt]);

  useEffect(() => {
    if (!done) return;
    const timer = setTimeout(proceed, Limits.otpRedirectMs);
    return () => clearTimeout(timer);
  }, [done, proceed]);

  useEffect(() => {
    if (step === 'verify') input.current?.focus();
  }, [step]);

  const fail = (error: unknown) => {
    if (error instanceof ApiError && error.status === 401) setPopup(statusMessage(error));
    else if (error instanceof ApiError && error.status === 429) toast(statusMessage(error), 'error');
    else
      toast(
        flow === 'esignature' ? t('messages.otpErrorEsignature') : serverMessage(error, Messages.otpErrorEsignature),
        'error',
      );
  };

  const send = async (resend: boolean) => {
    setBusy(true);
    try {
      const path = [orgId, refId, order].map((part) => encodeURIComponent(String(part))).join('/');
      // The SMS and the e-mail say the code in the page's language (issue 22).
      const sent = await signerFetch<SendOtpResponse>(`/v1/sendotp/${path}?lang=${language}`);
      const next = { userId: sent.userId, resendAt: Date.now() + sent.resend_after * 1000 };
      setUserId(next.userId);
      setOtp('');
      setOutcome(null);
      setResendAt(next.resendAt);
      setNow(Date.now());
      onSent?.(next);
      toast(resend ? t('messages.otpResent') : t('messages.otpSent'), 'success');
    } catch (error) {
      fail(error);
    } finally {
      setBusy(false);
    }
  };

  // What the API takes as an OTP (the contract's signerOtpSchema: six digits).
  const complete = checkInput(signerOtpSchema, otp).ok;

  const verify = async (event: FormEvent) => {
    event.preventDefault();
    if (!userId || !complete || busy || done) return;
    trigger.current = input.current;
    setBusy(true);
    setOutcome(null);
    try {
      const answer = await signerFetch<VerifyOtpResponse>(`/v1/verifyotp/${encodeURIComponent(userId)}`, {
        body: { otp },
      });
      if (answer.verify && answer.session_token) keepSignerSession(answer.session_token);
      setOutcome(answer.verify ? 'verified' : answer.expired ? 'expired' : 'invalid');
    } catch (error) {
      fail(error);
    } finally {
      setBusy(false);
    }
  };

  const steps = [
    ['request', t('page.otpRequestStep')],
    ['verify', t('page.otpVerifyStep')],
  ] as const;
  const wrong =
    outcome === 'expired' ? t('messages.otpExpired') : outcome === 'invalid' ? t('messages.otpInvalid') : null;

  const actions =
    step === 'request' ? (
      <>
        <Button variant="outline" onClick={close}>
          {t('page.close')}
        </Button>
        {earlier && (
          <Button
            variant="text"
            onClick={() => {
              setUserId(earlier.userId);
              setResendAt(earlier.resendAt);
              setNow(Date.now());
            }}
            disabled={busy}
          >
            {t('page.otpHaveCode')}
          </Button>
        )}
        <Button
          onClick={(event) => {
            trigger.current = event.currentTarget;
            void send(false);
          }}
          disabled={busy}
        >
          {t('page.getOtp')}
        </Button>
      </>
    ) : (
      <>
        <Button
          variant="text"
          onClick={(event) => {
            trigger.current = event.currentTarget;
            void send(true);
          }}
          disabled={busy || done || wait > 0}
        >
          {t('page.resendOtp')}
          {wait > 0 && <span aria-hidden="true">{` ${t('page.countdown', { seconds: wait })}`}</span>}
        </Button>
        <Button variant="outline" onClick={close} disabled={done}>
          {t('page.close')}
        </Button>
        <Button type="submit" form={formId} disabled={busy || done || !complete}>
          {t('page.verify')}
        </Button>
      </>
    );

  return (
    <>
      <Dialog open title={t('page.otpTitle')} onClose={close} actions={actions}>
        <ol className="otp-steps" aria-label={t('page.otpSteps')}>
          {steps.map(([key, label], index) => (
            <li
              key={key}
              className={key === step ? 'otp-step otp-step-current' : 'otp-step'}
              aria-current={key === step ? 'step' : undefined}
            >
              <span className="otp-step-number" aria-hidden="true">
                {index + 1}
              </span>
              {label}
            </li>
          ))}
        </ol>
        {step === 'verify' && (
          <form id={formId} onSubmit={(event) => void verify(event)} noValidate>
            <input
              ref={input}
              className="input otp-input"
              value={otp}
              onChange={(event) => {
                setOtp(event.target.value.replace(/\D/g, '').slice(0, Limits.otpLength));
                setOutcome(null);
              }}
              placeholder={t('page.otpPlaceholder')}
              aria-label={t('page.otpPlaceholder')}
              aria-invalid={wrong ? true : undefined}
              aria-describedby={messageId}
              inputMode="numeric"
              autoComplete="one-time-code"
              maxLength={Limits.otpLength}
              disabled={done}
            />
            <div id={messageId} className="otp-message">
              {wrong && (
                <p role="alert" className="error-text">
                  {wrong}
                </p>
              )}
              {done && (
                <div role="status" className="otp-verified">
                  <strong>{t('messages.otpVerified')}</strong>
                  <span>{t('messages.redirectingToEsign')}</span>
                </div>
              )}
            </div>
          </form>
        )}
      </Dialog>
      <Dialog
        open={popup !== null}
        onClose={closePopup}
        actions={<Button onClick={closePopup}>{t('page.close')}</Button>}
      >
        <p role="alert" className="otp-popup">
          {popup === null ? null : known(popup)}
        </p>
      </Dialog>
    </>
  );
};

export default OtpDialog;
