import { Limits, Messages } from '@esign/contract';
import type { FailedResponse, RetryResponse } from '@esign/contract';
import { useEffect, useState } from 'react';
import { useNavigate, useParams, useSearchParams } from 'react-router-dom';
import { serverMessage, signToken, signerFetch, withScheme } from '../api';
import { Button, PleaseWait, Shell } from '../components';
import { METHOD_NAMES, useI18n } from '../i18n';
import { MessagePage } from './StatusPages';

/**
 * /failed/{orgId}/{requestId} (spec section 4, step 13): the failure is posted (an `email` flag in the address means
 * no e-mail), then the reason, Ref. ID and Request ID, and 'Retry Signing' until the attempts are used up. With a
 * return_url the page redirects there after 5 s unless the signer retries.
 */
const Failed = () => {
  const { orgId = '', requestId = '' } = useParams();
  const [search] = useSearchParams();
  const navigate = useNavigate();
  const { t, known } = useI18n();
  const [failure, setFailure] = useState<FailedResponse | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [exhausted, setExhausted] = useState(false);
  const [retrying, setRetrying] = useState(false);
  const [redirecting, setRedirecting] = useState(false);
  const at = `${encodeURIComponent(orgId)}/${encodeURIComponent(requestId)}`;

  useEffect(() => {
    let live = true;
    signerFetch<FailedResponse>(`/v1/failed/${at}`, { body: { send_email: !search.has('email') } }).then(
      (answer) => {
        if (!live) return;
        setFailure(answer);
        setExhausted(answer.attempts_left <= 0);
      },
      (e: unknown) => live && setError(serverMessage(e, Messages.internalError)),
    );
    return () => {
      live = false;
    };
  }, [at, search]);

  // With a return_url the signer is sent there after 5 s unless they retry; without one the page shows its 5-second
  // redirecting state before the failure (spec section 9).
  useEffect(() => {
    if (!failure || retrying) return;
    setRedirecting(true);
    const timer = setTimeout(() => {
      if (failure.return_url) window.location.assign(withScheme(failure.return_url));
      else setRedirecting(false);
    }, Limits.failedRedirectMs);
    return () => clearTimeout(timer);
  }, [failure, retrying]);

  const retry = async () => {
    setRetrying(true);
    setRedirecting(false);
    try {
      const answer = await signerFetch<RetryResponse>(`/v1/retry/${at}`);
      if (answer.message === Messages.countExceeded) {
        setExhausted(true);
        setRetrying(false);
        return;
      }
      const token = signToken();
      navigate(
        `/esign/${encodeURIComponent(orgId)}/${failure?.refId}/${answer.order}?token=${encodeURIComponent(token ?? '')}`,
      );
    } catch (e) {
      setError(serverMessage(e, Messages.internalError));
      setRetrying(false);
    }
  };

  return (
    <Shell orgId={orgId}>
      {!failure && !error && <PleaseWait />}
      {error && <MessagePage message={error} testId="failed-error" />}
      {failure && redirecting && !failure.return_url && <PleaseWait text={t('page.redirecting')} />}
      {failure && !(redirecting && !failure.return_url) && (
        <div className="status-page" data-testid="failed">
          <h1 className="message">
            {t('page.failedTitle', {
              signType: t(
                failure.signatureType === null ? 'page.methodESignature' : METHOD_NAMES[failure.signatureType],
              ),
            })}
          </h1>
          <p className="center">
            {t('page.failureReason', { errorCode: failure.errorCode, errorMessage: known(failure.errorMessage) })}
          </p>
          <p className="center note">
            {t('page.refAndRequest', { refId: failure.refId, requestId: failure.requestId })}
          </p>
          {exhausted ? (
            <p className="center" data-testid="exhausted">
              {t('page.attemptsExhausted')}
            </p>
          ) : (
            <div className="center">
              <Button disabled={retrying} onClick={() => void retry()}>
                {retrying ? <span className="spinner spinner-small" aria-hidden="true" /> : null}
                {t('page.retrySigning')}
              </Button>
            </div>
          )}
          {redirecting && failure.return_url && <PleaseWait text={t('page.redirecting')} />}
        </div>
      )}
    </Shell>
  );
};

export default Failed;
