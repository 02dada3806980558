import { Limits, Messages, RecipientMessages, SignerTexts, SigningMethod } from '@esign/contract';
import type { ReferenceResponse, SigningRequest, SigningStatusResponse } from '@esign/contract';
import { Suspense, lazy, useCallback, useEffect, useRef, useState } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import { ApiError, referencePath, serverMessage, signToken, signerFetch } from '../api';
import { Backdrop, Button, Dialog, PleaseWait, Shell, useToast } from '../components';
import OtpDialog from '../dialogs/OtpDialog';
import type { PadSignature } from '../dialogs/SignaturePad';
import MethodChoice from '../esign/MethodChoice';
import type { MethodChoiceResult } from '../esign/MethodChoice';
import { MessagePage, RejectedPage, StatusPage } from './StatusPages';
// Small: pdf.js itself loads (its own chunks) when the viewer is shown. Not lazy, so React does not hold the reveal.
import Viewer from '../esign/Viewer';

const SignaturePad = lazy(() => import('../dialogs/SignaturePad'));
const Instructions = lazy(() => import('../dialogs/Instructions'));

type Loaded = { kind: 'loading' } | { kind: 'error'; message: string } | { kind: 'ready'; request: SigningRequest };

/** A page the flow ends on: the hold-on page (code 400), a location remark, the rejected result. */
type Ending = { kind: 'hold-on'; message: string } | { kind: 'remark'; message: string } | { kind: 'rejected' };

const needsChecks = (r: SigningRequest): boolean =>
  [r.location_capture, r.face_capture, r.esignature_face_capture, r.aadhaar_face_capture, r.live_video].includes(
    'true',
  );

/** Posts a form to the signing gateway in this window (spec section 4, step 5: the Aadhaar hidden form). */
function postForm(url: string, fields: Record<string, string>): void {
  const form = document.createElement('form');
  form.method = 'POST';
  form.action = url;
  form.style.display = 'none';
  for (const [name, value] of Object.entries(fields)) {
    const input = document.createElement('input');
    input.type = 'hidden';
    input.name = name;
    input.value = value;
    form.appendChild(input);
  }
  document.body.appendChild(form);
  form.submit();
}

/**
 * /esign/{orgId}/{refID}/{order}?token=…: the recipient signing page (spec section 4, steps 1 to 11). The server
 * decides every rule; this page shows what it answers and follows the specification's order: OTP, checks, the
 * document, accept or reject, the method, then the signature.
 */
const Esign = () => {
  const { orgId = '', refId = '', order = '' } = useParams();
  const navigate = useNavigate();
  const toast = useToast();
  const [loaded, setLoaded] = useState<Loaded>({ kind: 'loading' });
  const [ending, setEnding] = useState<Ending | null>(null);
  const [checksDone, setChecksDone] = useState(false);
  const [dialog, setDialog] = useState<'accept' | 'reject' | 'otp' | 'pad' | null>(null);
  const [remark, setRemark] = useState('');
  const [busy, setBusy] = useState(false);
  const [popup, setPopup] = useState<string | null>(null);
  const opened = useRef(false);
  const base = `${encodeURIComponent(orgId)}/${encodeURIComponent(refId)}/${encodeURIComponent(order)}`;

  const load = useCallback(async () => {
    if (!signToken()) {
      setLoaded({ kind: 'error', message: RecipientMessages.invalidLink });
      return;
    }
    try {
      const answer = await signerFetch<ReferenceResponse>(referencePath(orgId, refId, order));
      performance.mark('esign:reference');
      setLoaded({ kind: 'ready', request: answer.request });
    } catch (error) {
      setLoaded({ kind: 'error', message: serverMessage(error, Messages.internalError) });
    }
  }, [orgId, refId, order]);

  useEffect(() => {
    void load();
  }, [load]);

  const request = loaded.kind === 'ready' ? loaded.request : null;
  const live = request !== null && request.esignStatus === null && !request.remark && request.status !== 'failed';
  const otpFirst =
    live && request.otpVerificationRequired === 'true' && ['in-progress', 'opened'].includes(request.status);
  const showChecks = live && !otpFirst && !checksDone && !request.accepted && needsChecks(request);
  const documentShown = live && !otpFirst && !showChecks && request.uploadUrl !== null;

  // A failed attempt with tries left: the failed page offers the retry (spec: other statuses go there, email flag set).
  useEffect(() => {
    if (request && request.esignStatus === null && request.status === 'failed')
      navigate(`/failed/${encodeURIComponent(orgId)}/${request.requestId}?email=false`, { replace: true });
  }, [request, navigate, orgId]);

  // Signer status is posted as opened once the document is shown (then signing, on Accept).
  useEffect(() => {
    if (!documentShown || opened.current || request?.status !== 'in-progress') return;
    opened.current = true;
    const userAgent = { Browser: navigator.userAgent.slice(0, 120), OS: navigator.platform || 'unknown' };
    void signerFetch(`/v1/signer_details/${base}`, { body: { status: 'opened', userAgent } }).catch(() => undefined);
  }, [documentShown, request, base]);

  const act = async (work: () => Promise<void>) => {
    setBusy(true);
    try {
      await work();
    } finally {
      setBusy(false);
    }
  };

  /** Code 400 → the hold-on page with the server's message; 401 → a popup with it; else a toast. */
  const failed = (error: unknown, fallback: string) => {
    if (error instanceof ApiError && error.status === 400)
      setEnding({ kind: 'hold-on', message: serverMessage(error, fallback) });
    else if (error instanceof ApiError && error.status === 401)
      setPopup(error.body?.status?.statusMessage ?? serverMessage(error, fallback));
    else toast(serverMessage(error, fallback), 'error');
  };

  const accept = () =>
    act(async () => {
      setDialog(null);
      try {
        await signerFetch(`/v1/signer_details/${base}`, { body: { status: 'signing' } });
        await load();
      } catch (error) {
        failed(error, Messages.internalError);
      }
    });

  const reject = () =>
    act(async () => {
      try {
        await signerFetch(`/v1/esign/reject/${base}`, { body: { remark: remark.trim() } });
        setDialog(null);
        setEnding({ kind: 'rejected' });
      } catch {
        toast(Messages.rejectFailed, 'error');
      }
    });

  const goToSuccess = (r: SigningRequest) => navigate(`/success/${encodeURIComponent(orgId)}/${r.requestId}`);

  /** DSC: the password goes to the desktop signer through the server; poll every second until completed. */
  const pollUntilSigned = async (r: SigningRequest) => {
    for (;;) {
      const status = await signerFetch<SigningStatusResponse>(
        `/v1/request/${encodeURIComponent(orgId)}/${r.requestId}`,
      );
      if (status.status === 'completed') return goToSuccess(r);
      if (status.status === 'failed') return navigate(`/failed/${encodeURIComponent(orgId)}/${r.requestId}`);
      await new Promise((resolve) => setTimeout(resolve, Limits.dscPollMs));
    }
  };

  const proceed = (r: SigningRequest, choice: MethodChoiceResult) =>
    act(async () => {
      const at = `${encodeURIComponent(orgId)}/${r.requestId}`;
      if (choice.method === SigningMethod.ESignature) {
        try {
          await signerFetch(`/v1/init/${at}?method=${SigningMethod.ESignature}`);
        } catch (error) {
          return failed(error, Messages.internalError);
        }
        setDialog(r.otpVerificationRequired === 'true' ? 'otp' : 'pad');
      } else if (choice.method === SigningMethod.Aadhaar) {
        try {
          const start = await signerFetch<{ esp_url?: string; fields?: Record<string, string> }>(
            `/v1/init/${at}?method=${SigningMethod.Aadhaar}`,
          );
          if (!start.esp_url || !start.fields) throw new Error('no gateway');
          postForm(start.esp_url, start.fields);
        } catch (error) {
          if (error instanceof ApiError && error.status === 401) failed(error, Messages.aadhaarStartFailed);
          else toast(Messages.aadhaarStartFailed, 'error');
        }
      } else {
        try {
          await signerFetch(`/v1/dscToken/${at}`, { body: { usb_token: choice.password } });
          await pollUntilSigned(r);
        } catch (error) {
          failed(error, Messages.internalError);
        }
      }
    });

  const submitSignature = async (r: SigningRequest, signature: PadSignature) => {
    let body: FormData | Record<string, string>;
    if (signature.kind === 'uploaded') {
      body = new FormData();
      body.set('kind', 'uploaded');
      body.set('file', signature.file, signature.file.name);
    } else if (signature.kind === 'typed') body = { kind: 'typed', style: signature.style };
    else body = { kind: 'drawn', file: signature.dataUrl };
    try {
      await signerFetch(`/v1/esignature/${encodeURIComponent(orgId)}/${r.requestId}`, { body });
      setDialog(null);
      goToSuccess(r);
    } catch (error) {
      setDialog(null);
      failed(error, Messages.internalError);
      throw error;
    }
  };

  let content;
  if (loaded.kind === 'loading') content = <PleaseWait />;
  else if (loaded.kind === 'error') content = <MessagePage message={loaded.message} testId="link-error" />;
  else if (ending?.kind === 'rejected') content = <RejectedPage returnUrl={loaded.request.return_url} />;
  else if (ending) content = <MessagePage message={ending.message} testId={ending.kind} />;
  else if (loaded.request.remark) content = <MessagePage message={loaded.request.remark} testId="remark" />;
  else if (loaded.request.esignStatus)
    content = <StatusPage request={loaded.request} status={loaded.request.esignStatus} />;
  else {
    const r = loaded.request;
    content = (
      <div className="signing">
        {documentShown && r.uploadUrl && <Viewer url={r.uploadUrl} />}
        <aside className="signing-side">
          <dl className="details">
            <dt>{SignerTexts.nameLabel}</dt>
            <dd data-testid="signer-name">{r.name}</dd>
            <dt>{SignerTexts.emailLabel}</dt>
            <dd>{r.email}</dd>
            <dt>{SignerTexts.phoneLabel}</dt>
            <dd>{r.phoneNumber}</dd>
          </dl>
          {documentShown && !r.accepted && (
            <div className="decide">
              <p>{SignerTexts.acceptPrompt}</p>
              <div className="row">
                <Button onClick={() => setDialog('accept')}>{SignerTexts.accept}</Button>
                <Button variant="danger" onClick={() => setDialog('reject')}>
                  {SignerTexts.reject}
                </Button>
              </div>
            </div>
          )}
          {documentShown && r.accepted && (
            <MethodChoice request={r} busy={busy} onProceed={(c) => void proceed(r, c)} />
          )}
        </aside>

        {otpFirst && (
          <OtpDialog
            open
            orgId={orgId}
            refId={refId}
            order={order}
            flow="initial"
            onVerified={() => void load()}
            onClose={() => undefined}
          />
        )}
        {showChecks && (
          <Suspense fallback={<Backdrop open />}>
            <Instructions
              open
              request={r}
              onDone={() => setChecksDone(true)}
              onBack={() => undefined}
              onBlocked={(message) => setEnding({ kind: 'remark', message: message ?? Messages.locationDenied })}
            />
          </Suspense>
        )}
        {dialog === 'otp' && (
          <OtpDialog
            open
            orgId={orgId}
            refId={refId}
            order={order}
            flow="esignature"
            onVerified={() => setDialog('pad')}
            onClose={() => setDialog(null)}
          />
        )}
        {dialog === 'pad' && (
          <Suspense fallback={<Backdrop open />}>
            <SignaturePad open name={r.name} onSubmit={(s) => submitSignature(r, s)} onExit={() => setDialog(null)} />
          </Suspense>
        )}
        <Dialog
          open={dialog === 'accept'}
          onClose={() => setDialog(null)}
          actions={
            <>
              <Button variant="outline" onClick={() => setDialog(null)}>
                {SignerTexts.no}
              </Button>
              <Button onClick={() => void accept()}>{SignerTexts.yes}</Button>
            </>
          }
        >
          <p>{SignerTexts.acceptConfirm}</p>
        </Dialog>
        <Dialog
          open={dialog === 'reject'}
          onClose={() => setDialog(null)}
          actions={
            <>
              <Button variant="outline" onClick={() => setDialog(null)}>
                {SignerTexts.cancel}
              </Button>
              <Button variant="danger" disabled={!remark.trim() || busy} onClick={() => void reject()}>
                {SignerTexts.reject}
              </Button>
            </>
          }
        >
          <p>{SignerTexts.rejectConfirm}</p>
          <div className="field">
            <label htmlFor="remark">{SignerTexts.remarkLabel}</label>
            <textarea
              id="remark"
              className="input"
              rows={4}
              required
              maxLength={Limits.remarkMaxLength}
              value={remark}
              onChange={(e) => setRemark(e.target.value)}
            />
          </div>
          <p className="note">{SignerTexts.remarkNote}</p>
        </Dialog>
      </div>
    );
  }

  return (
    <Shell orgId={orgId} wide={documentShown}>
      {content}
      <Dialog
        open={popup !== null}
        onClose={() => setPopup(null)}
        actions={<Button onClick={() => setPopup(null)}>{SignerTexts.close}</Button>}
      >
        <p role="alert">{popup}</p>
      </Dialog>
      <Backdrop open={busy} />
    </Shell>
  );
};

export default Esign;
