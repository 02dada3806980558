import { Limits, SigningMethod } from '@esign/contract';
import type { ReturnUrlResponse, SigningStatusResponse } from '@esign/contract';
import { useEffect, useState } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import { ApiError, serverMessage, signerFetch, withScheme } from '../api';
import { PleaseWait, Shell } from '../components';
import { useI18n } from '../i18n';
import { MessagePage } from './StatusPages';

type State =
  | { kind: 'processing' }
  | { kind: 'done'; returnUrl: string | null; downloadUrl: string | null }
  | { kind: 'discrepancy'; message: string }
  | { kind: 'error'; message: string };

/** How long the page waits for the signature to be applied to the document before saying so. */
const WAIT_MS = 120_000;

/**
 * /success/{orgId}/{requestId} (spec section 4, step 12): 'Processing...' until the signature is in the document
 * (the seal job applies it); an Aadhaar signature first passes the discrepancy check ('eSign rejected' with the
 * message, then return_url after 2 s); then 'eSign successfully completed' and the way on to return_url.
 */
const Success = () => {
  const { orgId = '', requestId = '' } = useParams();
  const navigate = useNavigate();
  const { t, known } = useI18n();
  const [state, setState] = useState<State>({ kind: 'processing' });
  const at = `${encodeURIComponent(orgId)}/${encodeURIComponent(requestId)}`;

  useEffect(() => {
    let live = true;
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    void (async () => {
      try {
        let status = await signerFetch<SigningStatusResponse>(`/v1/request/${at}`);
        if (status.signature_type === SigningMethod.Aadhaar) {
          try {
            await signerFetch(`/v1/aadhaar_discrepancy_check/${encodeURIComponent(requestId)}`);
          } catch (error) {
            if (error instanceof ApiError && error.status === 400) {
              const answer = error.body as (ReturnUrlResponse & { message?: string }) | null;
              if (live) setState({ kind: 'discrepancy', message: serverMessage(error, '') });
              if (answer?.return_url) await sleep(Limits.discrepancyRedirectMs);
              if (answer?.return_url && live) window.location.assign(withScheme(answer.return_url));
              return;
            }
            throw error;
          }
        }
        const started = Date.now();
        while (!status.signed && Date.now() - started < WAIT_MS) {
          if (status.status === 'failed') return navigate(`/failed/${at}`, { replace: true });
          await sleep(Limits.dscPollMs);
          if (!live) return;
          status = await signerFetch<SigningStatusResponse>(`/v1/request/${at}`);
        }
        const download = await signerFetch<ReturnUrlResponse>(`/v1/download/${at}`);
        if (!live) return;
        setState({ kind: 'done', returnUrl: download.return_url, downloadUrl: download.download_url ?? null });
        if (download.return_url) {
          await sleep(Limits.rejectRedirectMs);
          if (live) window.location.assign(withScheme(download.return_url));
        }
      } catch (error) {
        if (live) setState({ kind: 'error', message: serverMessage(error, '') });
      }
    })();
    return () => {
      live = false;
    };
  }, [at, requestId, navigate]);

  return (
    <Shell orgId={orgId}>
      {state.kind === 'processing' && <PleaseWait text={t('page.processing')} />}
      {state.kind === 'error' && <MessagePage message={state.message || t('page.faceError')} testId="success-error" />}
      {state.kind === 'discrepancy' && (
        <div className="status-page" data-testid="discrepancy">
          <h1 className="message">{t('page.esignRejected')}</h1>
          <p className="center">{state.message ? known(state.message) : t('page.esignRejected')}</p>
        </div>
      )}
      {state.kind === 'done' && (
        <div className="status-page" data-testid="success">
          <h1 className="message">{t('page.successTitle')}</h1>
          <p className="center">{state.returnUrl ? t('page.dontClose') : t('page.closeWindow')}</p>
          {state.downloadUrl && (
            <p className="center">
              <a href={state.downloadUrl} target="_blank" rel="noopener noreferrer">
                {t('page.downloadSigned')}
              </a>
            </p>
          )}
        </div>
      )}
    </Shell>
  );
};

export default Success;
