import { RecipientMessages } from '@esign/contract';
import type { SigningRequest } from '@esign/contract';
import { Suspense, useRef, useState } from 'react';
import type Webcam from 'react-webcam';
import { ApiError, signerFetch } from '../api';
import { Button } from '../components';
import { useI18n } from '../i18n';
import { loadFaceEngine, loadImage } from '../face/engine';
import { usePreviewFaces, useFaceEngine } from '../face/useFaceEngine';
import { LazyWebcam } from './media';

/**
 * live: the preview; processing: checked, then sent; ok: the server took it; none: no face (the browser's or the
 * server's check); refused: another 4xx (or several faces), `message` says why; error: anything else.
 */
export type FaceStatus = 'live' | 'processing' | 'ok' | 'none' | 'refused' | 'error';
export interface FaceResult {
  status: FaceStatus;
  /** The captured JPEG as a data URL. */
  image: string | null;
  /** What to show for 'refused'. */
  message?: string;
}

const MAX = { width: 640, height: 480 };
const VIDEO: MediaTrackConstraints = { facingMode: 'user', width: { ideal: 640 }, height: { ideal: 480 } };
/** How long a capture waits for face models still loading before it goes to the server's check alone. */
const ENGINE_WAIT_MS = 3000;

/** The faces the browser's models find in the captured JPEG, or null when they cannot tell (not loaded, failed). */
async function browserFaceCount(image: string): Promise<number | null> {
  let timer = 0;
  try {
    const engine = await Promise.race([
      loadFaceEngine(),
      new Promise<null>((resolve) => {
        timer = window.setTimeout(() => resolve(null), ENGINE_WAIT_MS);
      }),
    ]);
    if (!engine) return null;
    const faces = await engine.detect(await loadImage(image));
    return faces ? faces.length : null;
  } catch {
    return null;
  } finally {
    window.clearTimeout(timer);
  }
}

/**
 * Step 1 of the instructions: a mirrored webcam preview with a live hint (face in view or not, from the browser's face
 * models), Capture (a JPEG of at most 640×480), checked in the browser first (no face, or several, is refused without
 * sending it), then sent: the server checks it again and decides. Recapture starts over.
 */
export const FaceCapture = ({
  request,
  result,
  onResult,
}: {
  request: SigningRequest;
  result: FaceResult;
  onResult: (result: FaceResult) => void;
}) => {
  const { t, known } = useI18n();
  const camera = useRef<Webcam>(null);
  const [ready, setReady] = useState(false);
  const [cameraError, setCameraError] = useState(false);
  const { engine } = useFaceEngine();
  const { status, image } = result;
  const inView = usePreviewFaces(engine, () => camera.current?.video, ready && !image);

  const capture = async () => {
    const video = camera.current?.video;
    const [w, h] = [video?.videoWidth || MAX.width, video?.videoHeight || MAX.height];
    const scale = Math.min(1, MAX.width / w, MAX.height / h);
    const shot = camera.current?.getScreenshot({ width: Math.round(w * scale), height: Math.round(h * scale) });
    if (!shot) return onResult({ status: 'error', image: null });
    onResult({ status: 'processing', image: shot });
    const faces = await browserFaceCount(shot);
    if (faces === 0) return onResult({ status: 'none', image: shot });
    if (faces !== null && faces > 1)
      return onResult({ status: 'refused', image: shot, message: RecipientMessages.manyFaces });
    try {
      const path = [request.orgId, request.refId, request.orderNo].map((p) => encodeURIComponent(String(p))).join('/');
      await signerFetch(`/v1/signer_details/${path}`, { body: { status: 'opened', selfie: shot } });
      onResult({ status: 'ok', image: shot });
    } catch (error) {
      // The server's face check: its no-face answer is the spec's text; another refusal shows the server's words.
      const refusal = error instanceof ApiError && error.status >= 400 && error.status < 500;
      const message = refusal ? error.body?.message : undefined;
      if (!refusal) onResult({ status: 'error', image: shot });
      else if (!message || message === RecipientMessages.noFace) onResult({ status: 'none', image: shot });
      else onResult({ status: 'refused', image: shot, message });
    }
  };

  const recapture = () => {
    setReady(false);
    onResult({ status: 'live', image: null });
  };

  const problem =
    status === 'none'
      ? t('page.noFace')
      : status === 'refused'
        ? result.message
          ? known(result.message)
          : t('page.noFace')
        : status === 'error'
          ? t('page.faceError')
          : cameraError && !image
            ? t('messages.cameraDenied')
            : null;
  const hint =
    inView === null || image
      ? null
      : inView === 0
        ? t('page.noFaceInView')
        : inView === 1
          ? t('page.faceInView')
          : t('page.manyFacesInView');
  return (
    <div className="capture">
      <div className="camera">
        {image ? (
          <img className="camera-view" src={image} alt={t('page.faceImage')} />
        ) : (
          <Suspense fallback={<div className="camera-view" aria-busy="true" />}>
            <LazyWebcam
              ref={camera}
              className="camera-view"
              audio={false}
              mirrored
              screenshotFormat="image/jpeg"
              screenshotQuality={0.85}
              videoConstraints={VIDEO}
              onUserMedia={() => {
                setCameraError(false);
                // Capture only once the preview has a frame: before that the screenshot is empty.
                const video = camera.current?.video;
                if (!video || video.readyState >= HTMLMediaElement.HAVE_CURRENT_DATA) setReady(true);
                else video.addEventListener('loadeddata', () => setReady(true), { once: true });
              }}
              onUserMediaError={() => setCameraError(true)}
            />
          </Suspense>
        )}
        <p
          className={`face-hint face-hint-${inView === 1 ? 'ok' : 'warn'}`}
          data-testid="face-hint"
          aria-live="polite"
          hidden={!hint}
        >
          {hint}
        </p>
        {status === 'processing' && (
          <div className="camera-overlay" role="status">
            <span className="spinner spinner-light" aria-hidden="true" />
            <span>{t('page.faceProcessing')}</span>
          </div>
        )}
      </div>
      <div className="capture-message">
        {status === 'ok' && (
          <p role="status" className="success-text">
            {t('page.faceCaptured')}
          </p>
        )}
        {problem && (
          <p role="alert" className="error-text">
            {problem}
          </p>
        )}
      </div>
      <div className="capture-buttons">
        {image ? (
          <Button variant="outline" onClick={recapture} disabled={status === 'processing'}>
            {t('page.recapture')}
          </Button>
        ) : (
          <Button onClick={() => void capture()} disabled={!ready}>
            {t('page.capture')}
          </Button>
        )}
      </div>
    </div>
  );
};
