import { Limits, Messages, RecipientMessages, SigningMethod, checkInput, remarkSchema } from '@esign/contract';
import type { ReferenceResponse, SigningRequest, SigningStatusResponse } from '@esign/contract';
import { Suspense, lazy, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import { ApiError, needsOtp, referencePath, serverMessage, signToken, signerFetch } from '../api';
import { Backdrop, Button, Dialog, PleaseWait, Shell, useToast } from '../components';
import { useI18n } from '../i18n';
import { anyNeeded, checkNeeds, type CheckNeeds } from '../dialogs/checks';
import OtpDialog from '../dialogs/OtpDialog';
import type { OtpFlow, SentOtp } from '../dialogs/OtpDialog';
import type { PadSignature } from '../dialogs/SignaturePad';
import MethodChoice from '../esign/MethodChoice';
import type { MethodChoiceResult } from '../esign/MethodChoice';
import { useSignerFields } from '../fields/useSignerFields';
import { MessagePage, RejectedPage, StatusPage } from './StatusPages';
// Small: pdf.js itself loads (its own chunks) when the viewer is shown. Not lazy, so React does not hold the reveal.
import Viewer from '../esign/Viewer';

const SignaturePad = lazy(() => import('../dialogs/SignaturePad'));
const Instructions = lazy(() => import('../dialogs/Instructions'));
// The fields step (issue 21) loads only for a signer who has fields.
const FieldsPanel = lazy(() => import('../fields/FieldsPanel'));
const FieldOverlays = lazy(() => import('../fields/FieldOverlays'));

type Loaded = { kind: 'loading' } | { kind: 'error'; message: string } | { kind: 'ready'; request: SigningRequest };

/** A page the flow ends on: the hold-on page (code 400), a location remark, the rejected result. */
type Ending = { kind: 'hold-on'; message: string } | { kind: 'remark'; message: string } | { kind: 'rejected' };

/** What the signer asked for that needs the OTP (or the identity checks) first: done once they pass. */
type Pending = { kind: 'accept' } | { kind: 'reject' } | { kind: 'proceed'; choice: MethodChoiceResult };

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
 * document, accept or reject, the method, then the signature. The OTP is verified in this browser (the signer
 * session); closing its dialog or going Back from the checks returns to the page, and what the signer then asks for
 * goes through them first.
 */
const Esign = () => {
  const { orgId = '', refId = '', order = '' } = useParams();
  const navigate = useNavigate();
  const toast = useToast();
  const { t, known, offerPartyLanguage } = useI18n();
  const [loaded, setLoaded] = useState<Loaded>({ kind: 'loading' });
  const [ending, setEnding] = useState<Ending | null>(null);
  const [dialog, setDialog] = useState<'accept' | 'reject' | 'pad' | null>(null);
  /** The OTP dialog: the specification's initial one (before the document) or the e-signature one (before the pad). */
  const [otp, setOtp] = useState<{ flow: OtpFlow; then: Pending | null } | null>(null);
  /** The initial OTP dialog was closed: the page is shown without the document until the signer verifies. */
  const [otpClosed, setOtpClosed] = useState(false);
  const [sentOtp, setSentOtp] = useState<SentOtp | null>(null);
  /** The identity checks shown now, and what to do once they pass; `back`: the initial checks were left by Back. */
  const [checks, setChecks] = useState<{ needs: CheckNeeds; then: Pending | null } | null>(null);
  const [checksLeft, setChecksLeft] = useState(false);
  /** Checks passed on this page: not asked again while the page lives (the server still decides at signing). */
  const [passedHere, setPassedHere] = useState<CheckNeeds>({ location: false, face: false, liveness: false });
  const stillNeeded = (r: SigningRequest, method: MethodChoiceResult['method'] | null): CheckNeeds => {
    const needs = checkNeeds(r, method);
    return {
      location: needs.location && !passedHere.location,
      face: needs.face && !passedHere.face,
      liveness: needs.liveness && !passedHere.liveness,
    };
  };
  const [focusBox, setFocusBox] = useState(0);
  const [remark, setRemark] = useState('');
  const [busy, setBusy] = useState(false);
  const [popup, setPopup] = useState<string | null>(null);
  const opened = useRef(false);
  const base = `${encodeURIComponent(orgId)}/${encodeURIComponent(refId)}/${encodeURIComponent(order)}`;

  const load = useCallback(async (): Promise<SigningRequest | null> => {
    if (!signToken()) {
      setLoaded({ kind: 'error', message: RecipientMessages.invalidLink });
      return null;
    }
    try {
      const answer = await signerFetch<ReferenceResponse>(referencePath(orgId, refId, order));
      performance.mark('esign:reference');
      offerPartyLanguage(answer.request.language);
      setLoaded({ kind: 'ready', request: answer.request });
      const pending = answer.request.otp;
      if (pending) setSentOtp({ userId: pending.userId, resendAt: Date.now() + pending.resend_after * 1000 });
      return answer.request;
    } catch (error) {
      setLoaded({ kind: 'error', message: serverMessage(error, Messages.internalError) });
      return null;
    }
  }, [orgId, refId, order, offerPartyLanguage]);

  useEffect(() => {
    void load();
  }, [load]);

  const request = loaded.kind === 'ready' ? loaded.request : null;
  const live = request !== null && request.esignStatus === null && !request.remark && request.status !== 'failed';
  const verified = live && request.otpVerificationRequired !== 'true';
  // Spec step 1: an OTP request opens with the OTP steps (unless the signer closed them).
  const initialOtp = live && !verified && !otpClosed && otp === null;
  // Then the checks every method needs (location, a face for every method, the video), unless left by Back.
  const initialNeeds = request && verified && !request.accepted ? stillNeeded(request, null) : null;
  const initialChecks =
    initialNeeds !== null && anyNeeded(initialNeeds) && !checksLeft && checks === null && dialog === null;
  const documentShown = verified && !initialChecks && checks === null && request?.uploadUrl !== null;

  // Issue 21: once accepted (and verified where the OTP is needed) the signer fills their fields before the method.
  const fields = useSignerFields({
    orgId,
    refId,
    order,
    active: live && verified && request.accepted,
    reloadKey: request,
    onNeedsOtp: () => void verifyThen(null),
    onFailed: (message) => toast(message, 'error'),
    onDone: () => setMethodFocus((n) => n + 1),
  });
  const fieldsShown = fields.shown && request !== null && request.accepted;
  const fieldPage = fields.currentField?.page;
  const fieldSeq = fields.current?.seq;
  const blockedBy =
    fields.shown && request?.accepted && fields.editable && fields.left > 0
      ? t('fields.requiredMissing', { count: fields.left })
      : null;
  // 'Next field' past the last field with nothing left: the focus goes on to the signing method, once it is usable
  // (the last value's save may still be under way).
  const [methodFocus, setMethodFocus] = useState(0);
  useEffect(() => {
    if (!methodFocus || blockedBy) return;
    const first = document.querySelector<HTMLInputElement>('.method input:not(:disabled)');
    if (!first) return;
    setMethodFocus(0);
    first.scrollIntoView({ block: 'center', behavior: 'smooth' });
    first.focus({ preventScroll: true });
  }, [methodFocus, blockedBy]);
  const turnTo = useMemo(
    () => (fieldPage !== undefined && fieldSeq !== undefined ? { page: fieldPage, seq: fieldSeq } : null),
    [fieldPage, fieldSeq],
  );

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

  /** The session ended or was never opened here: verify the OTP (again), then do `then`. */
  const verifyThen = async (then: Pending | null) => {
    setDialog(null);
    await load();
    setOtp({ flow: 'initial', then });
  };

  const accept = () =>
    act(async () => {
      setDialog(null);
      try {
        await signerFetch(`/v1/signer_details/${base}`, { body: { status: 'signing' } });
        await load();
      } catch (error) {
        if (needsOtp(error)) await verifyThen({ kind: 'accept' });
        else failed(error, Messages.internalError);
      }
    });

  const reject = () =>
    act(async () => {
      try {
        await signerFetch(`/v1/esign/reject/${base}`, { body: { remark: remark.trim() } });
        setDialog(null);
        setEnding({ kind: 'rejected' });
      } catch (error) {
        if (needsOtp(error)) await verifyThen({ kind: 'reject' });
        else toast(t('messages.rejectFailed'), 'error');
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

  const sign = (r: SigningRequest, choice: MethodChoiceResult) =>
    act(async () => {
      const at = `${encodeURIComponent(orgId)}/${r.requestId}`;
      const again = { kind: 'proceed' as const, choice };
      if (choice.method === SigningMethod.ESignature) {
        try {
          await signerFetch(`/v1/init/${at}?method=${SigningMethod.ESignature}`);
        } catch (error) {
          return needsOtp(error) ? verifyThen(again) : failed(error, Messages.internalError);
        }
        if (r.otpVerificationRequired === 'true') setOtp({ flow: 'esignature', then: null });
        else setDialog('pad');
      } else if (choice.method === SigningMethod.Aadhaar) {
        try {
          const start = await signerFetch<{ esp_url?: string; fields?: Record<string, string> }>(
            `/v1/init/${at}?method=${SigningMethod.Aadhaar}`,
          );
          if (!start.esp_url || !start.fields) throw new Error('no gateway');
          postForm(start.esp_url, start.fields);
        } catch (error) {
          if (needsOtp(error)) await verifyThen(again);
          else if (error instanceof ApiError && error.status === 401) failed(error, t('messages.aadhaarStartFailed'));
          else toast(t('messages.aadhaarStartFailed'), 'error');
        }
      } else {
        try {
          await signerFetch(`/v1/dscToken/${at}`, { body: { usb_token: choice.password } });
          await pollUntilSigned(r);
        } catch (error) {
          if (needsOtp(error)) await verifyThen(again);
          else failed(error, Messages.internalError);
        }
      }
    });

  /** 'Proceed to eSign': the checks the chosen method still needs (its face capture), then the method's flow. */
  const proceed = (r: SigningRequest, choice: MethodChoiceResult) => {
    const needs = stillNeeded(r, choice.method);
    if (anyNeeded(needs)) setChecks({ needs, then: { kind: 'proceed', choice } });
    else void sign(r, choice);
  };

  /** Carries on with what the signer asked for once the OTP or the checks are done (on the request as now loaded). */
  const resume = (then: Pending | null, r: SigningRequest | null) => {
    if (!then || !r) return;
    if (then.kind === 'accept') setDialog('accept');
    else if (then.kind === 'reject') void reject();
    else proceed(r, then.choice);
  };

  const onOtpVerified = async () => {
    const then = otp?.then ?? null;
    const flow = otp?.flow;
    setOtp(null);
    setOtpClosed(false);
    if (flow === 'esignature') {
      // Spec step 7: on 'verified' the pad opens, and the OTP is no longer asked in this browser.
      setDialog('pad');
      void load();
      return;
    }
    resume(then, await load());
  };

  const onChecksDone = async () => {
    const then = checks?.then ?? null;
    const asked = checks?.needs ?? initialNeeds;
    if (asked)
      setPassedHere((p) => ({
        location: p.location || asked.location,
        face: p.face || asked.face,
        liveness: p.liveness || asked.liveness,
      }));
    setChecks(null);
    setChecksLeft(false);
    const r = await load();
    // The checks the method needed have just passed: straight on to its flow.
    if (then?.kind === 'proceed' && r) void sign(r, then.choice);
    else resume(then, r);
  };

  /** Accept and Reject are usable before the OTP or the checks: they go through them first. */
  const askAccept = (r: SigningRequest) => {
    if (r.otpVerificationRequired === 'true') setOtp({ flow: 'initial', then: { kind: 'accept' } });
    else setDialog('accept');
  };

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
      if (needsOtp(error)) await verifyThen(null);
      else failed(error, Messages.internalError);
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
    const canDecide = !r.accepted && (documentShown || (!verified && otpClosed) || (verified && checksLeft));
    content = (
      <div className="signing">
        <div className="signing-main">
          <dl className="context" data-testid="document-context">
            {r.document_name && (
              <div>
                <dt>{t('page.documentLabel')}</dt>
                <dd data-testid="document-name">{r.document_name}</dd>
              </div>
            )}
            <div>
              <dt>{t('page.sentByLabel')}</dt>
              <dd data-testid="organisation-name">{r.organisation_name}</dd>
            </div>
          </dl>
          {documentShown && r.uploadUrl && (
            <>
              {r.boxes && r.boxes.length > 0 && (
                <Button variant="outline" className="go-to-box" onClick={() => setFocusBox((n) => n + 1)}>
                  {t('page.goToMyBox')}
                </Button>
              )}
              <Viewer
                url={r.uploadUrl}
                boxes={r.boxes}
                focus={focusBox}
                turnTo={fieldsShown ? turnTo : null}
                overlay={
                  fieldsShown
                    ? (shown) => (
                        <Suspense fallback={null}>
                          <FieldOverlays state={fields} shown={shown} />
                        </Suspense>
                      )
                    : undefined
                }
              />
              {fieldsShown && (
                <Suspense fallback={null}>
                  <FieldsPanel state={fields} />
                </Suspense>
              )}
            </>
          )}
          {!verified && otpClosed && (
            <div className="notice" data-testid="verify-to-view">
              <p>{t('page.verifyToView')}</p>
              <Button variant="outline" onClick={() => setOtp({ flow: 'initial', then: null })}>
                {t('page.verifyOtpButton')}
              </Button>
            </div>
          )}
        </div>
        <aside className="signing-side">
          <dl className="details">
            <dt>{t('page.nameLabel')}</dt>
            <dd data-testid="signer-name">{r.name}</dd>
            <dt>{t('page.emailLabel')}</dt>
            <dd>{r.email}</dd>
            <dt>{t('page.phoneLabel')}</dt>
            <dd>{r.phoneNumber}</dd>
          </dl>
          {verified && checksLeft && initialNeeds && anyNeeded(initialNeeds) && (
            <div className="notice" data-testid="checks-left">
              <p>{t('page.checksToContinue')}</p>
              <Button variant="outline" onClick={() => setChecks({ needs: initialNeeds, then: null })}>
                {t('page.continueChecks')}
              </Button>
            </div>
          )}
          {canDecide && (
            <div className="decide">
              <p>{t('page.acceptPrompt')}</p>
              <div className="row">
                <Button onClick={() => askAccept(r)}>{t('page.accept')}</Button>
                <Button variant="danger" onClick={() => setDialog('reject')}>
                  {t('page.reject')}
                </Button>
              </div>
            </div>
          )}
          {verified && r.accepted && checks === null && (
            <MethodChoice request={r} busy={busy} onProceed={(c) => proceed(r, c)} blocked={blockedBy} />
          )}
        </aside>

        {(initialOtp || otp !== null) && (
          <OtpDialog
            open
            orgId={orgId}
            refId={refId}
            order={order}
            flow={otp?.flow ?? 'initial'}
            sent={sentOtp}
            onSent={setSentOtp}
            onVerified={() => void onOtpVerified()}
            onClose={() => {
              // Spec: 'close' closes the dialog. The page stays; Accept and Reject ask for the OTP first.
              setOtp(null);
              setOtpClosed(true);
            }}
          />
        )}
        {(initialChecks || checks !== null) && (
          <Suspense fallback={<Backdrop open />}>
            <Instructions
              open
              request={r}
              needs={checks?.needs ?? (initialNeeds as CheckNeeds)}
              onDone={() => void onChecksDone()}
              onBack={() => {
                // Back on the first step returns to the page; signing asks for the checks again.
                setChecks(null);
                setChecksLeft(true);
              }}
              onBlocked={(message) => setEnding({ kind: 'remark', message: message ?? t('messages.locationDenied') })}
            />
          </Suspense>
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
                {t('page.no')}
              </Button>
              <Button onClick={() => void accept()}>{t('page.yes')}</Button>
            </>
          }
        >
          <p>{t('page.acceptConfirm')}</p>
        </Dialog>
        <Dialog
          open={dialog === 'reject'}
          onClose={() => setDialog(null)}
          actions={
            <>
              <Button variant="outline" onClick={() => setDialog(null)}>
                {t('page.cancel')}
              </Button>
              <Button
                variant="danger"
                disabled={!checkInput(remarkSchema, remark).ok || busy}
                onClick={() => void reject()}
              >
                {t('page.reject')}
              </Button>
            </>
          }
        >
          <p>{t('page.rejectConfirm')}</p>
          <div className="field">
            <label htmlFor="remark">{t('page.remarkLabel')}</label>
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
          <p className="note">{t('page.remarkNote')}</p>
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
        actions={<Button onClick={() => setPopup(null)}>{t('page.close')}</Button>}
      >
        <p role="alert">{popup === null ? null : known(popup)}</p>
      </Dialog>
      <Backdrop open={busy} />
    </Shell>
  );
};

export default Esign;
