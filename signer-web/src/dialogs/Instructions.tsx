import { Messages } from '@esign/contract';
import type { LivenessResponse, SigningRequest } from '@esign/contract';
import { useEffect, useRef, useState } from 'react';
import { ApiError, serverMessage, signerFetch } from '../api';
import { Button, Dialog } from '../components';
import { useI18n } from '../i18n';
import { loadFaceEngine } from '../face/engine';
import { FaceCapture } from './FaceCapture';
import type { FaceResult } from './FaceCapture';
import { useStableCallback } from './hooks';
import { Liveness } from './Liveness';
import { blobToDataUrl } from './media';
import type { CheckNeeds } from './checks';
import { PermissionChecks } from './PermissionChecks';
import type { Checks } from './PermissionChecks';

export interface InstructionsProps {
  open: boolean;
  request: SigningRequest;
  /** What to ask for (checkNeeds): the steps the request needs and the signer has not passed yet. */
  needs: CheckNeeds;
  /** Every needed step passed (called at once when the request needs none). */
  onDone: () => void;
  /** Back on the first step (or Escape). */
  onBack: () => void;
  /** Signing from here is not allowed: the page shows the remark and stops. */
  onBlocked: (remark: string) => void;
}

type Step = 'checks' | 'face' | 'liveness';

/** POST /v1/liveness's answer (older services send no `passed`: then code 200 and the score over the threshold). */
type LivenessAnswer = Partial<Omit<LivenessResponse, 'code' | 'data'>> & {
  code: number;
  data?: { liveliness_score?: { value?: number | string } };
};

/**
 * The instruction dialogs before signing (spec section 4): permission checks, face capture, liveness video, with Back,
 * Next and 'Proceed to esign'. Each step is shown only when the request needs it.
 */
export const Instructions = (props: InstructionsProps) => (props.open ? <InstructionsBody {...props} /> : null);

const InstructionsBody = ({ request, needs: asked, onDone, onBack, onBlocked }: InstructionsProps) => {
  const { t, known } = useI18n();
  const [needs] = useState(() => ({ ...asked, camera: asked.face || asked.liveness }));
  const steps: Step[] = [];
  if (needs.location || needs.camera) steps.push('checks');
  if (needs.face) steps.push('face');
  if (needs.liveness) steps.push('liveness');

  const [index, setIndex] = useState(0);
  const [checks, setChecks] = useState<Checks>({
    location: needs.location ? 'pending' : 'skip',
    camera: needs.camera ? 'pending' : 'skip',
  });
  const [face, setFace] = useState<FaceResult>({ status: 'live', image: null });
  const [video, setVideo] = useState<Blob | null>(null);
  const [analysing, setAnalysing] = useState(false);
  /** The liveness video was refused: the spec's text, or the server's own for a refusal other than the analysis. */
  const [unverified, setUnverified] = useState<string | null>(null);
  const alive = useRef(true);
  const finished = useRef(false);
  const done = useStableCallback(() => {
    if (finished.current) return;
    finished.current = true;
    onDone();
  });
  const back = useStableCallback(onBack);

  useEffect(() => {
    // A face or liveness step is coming: the face models load during the permission checks (failures are the
    // steps' business: they go on without them).
    if (needs.camera) loadFaceEngine().catch(() => undefined);
  }, [needs.camera]);

  useEffect(() => {
    alive.current = true;
    if (!steps.length) done();
    return () => {
      alive.current = false;
    };
  }, [steps.length, done]);
  if (!steps.length) return null;

  const step = steps[index];
  const last = index === steps.length - 1;
  const passed =
    step === 'checks'
      ? checks.location !== 'pending' &&
        checks.camera !== 'pending' &&
        [checks.location, checks.camera].every((c) => c === 'ok' || c === 'skip')
      : step === 'face'
        ? face.status === 'ok' && face.image !== null
        : video !== null && !analysing;

  const analyse = async () => {
    if (!video) return;
    setAnalysing(true);
    setUnverified(null);
    try {
      const video_file = await blobToDataUrl(video);
      const path = `${encodeURIComponent(request.orgId)}/${encodeURIComponent(request.requestId)}`;
      const answer = await signerFetch<LivenessAnswer>(`/v1/liveness/${path}`, { body: { video_file } });
      if (!alive.current || !answer || typeof answer.code !== 'number') return;
      // The server decides (it refuses to sign until a video passed); its score is only read without `passed`.
      const value = Number(answer.data?.liveliness_score?.value);
      const passed =
        typeof answer.passed === 'boolean'
          ? answer.passed && answer.code === 200
          : answer.code === 200 && Number.isFinite(value) && value > request.live_video_threshold;
      if (passed) return done();
      if (answer.code === 400 || Number.isFinite(value)) setUnverified(Messages.faceVerificationFailed);
    } catch (error) {
      // A 400 is the analysis saying no (or an unreadable video); another refusal (too large, not a video, too many
      // attempts) shows the server's words; any other failure only stops the indicator.
      if (!alive.current || !(error instanceof ApiError)) return;
      if (error.status === 400) setUnverified(Messages.faceVerificationFailed);
      else if (error.status > 400 && error.status < 500)
        setUnverified(serverMessage(error, Messages.faceVerificationFailed));
    } finally {
      if (alive.current) setAnalysing(false);
    }
  };

  const next = () => {
    if (!passed) return;
    if (!last) setIndex(index + 1);
    else if (step === 'liveness') void analyse();
    else done();
  };

  const title = t(step === 'checks' ? 'page.checksTitle' : step === 'face' ? 'page.faceTitle' : 'page.livenessTitle');

  return (
    <Dialog
      open
      title={title}
      onClose={back}
      actions={
        <>
          <Button
            variant="outline"
            onClick={() => (index ? setIndex(index - 1) : back())}
            disabled={analysing || face.status === 'processing'}
          >
            {t('page.instructionsBack')}
          </Button>
          <Button onClick={next} disabled={!passed}>
            {last ? t('page.proceedToEsign') : t('page.instructionsNext')}
          </Button>
        </>
      }
    >
      {step === 'checks' && (
        <PermissionChecks orgId={request.orgId} checks={checks} onChecks={setChecks} onBlocked={onBlocked} />
      )}
      {step === 'face' && <FaceCapture request={request} result={face} onResult={setFace} />}
      {step === 'liveness' && (
        <>
          <Liveness
            video={video}
            busy={analysing}
            onVideo={(recorded) => {
              setVideo(recorded);
              setUnverified(null);
            }}
          />
          {analysing && (
            <div className="analysing" role="status">
              <span className="spinner" aria-hidden="true" />
              <strong>{t('page.processingVideo')}</strong>
              <span>{t('page.analysingVideo')}</span>
            </div>
          )}
          {unverified && (
            <p role="alert" className="error-text">
              {known(unverified)}
            </p>
          )}
        </>
      )}
    </Dialog>
  );
};

export default Instructions;
