import { Messages, SignerTexts } from '@esign/contract';
import type { SigningRequest } from '@esign/contract';
import { Suspense, useRef, useState } from 'react';
import type Webcam from 'react-webcam';
import { ApiError, signerFetch } from '../api';
import { Button } from '../components';
import { LazyWebcam } from './media';
import { DialogTexts } from './texts';

export type FaceCheck = (image: string) => Promise<'ok' | 'none'>;
let faceCheck: FaceCheck | null = null;

/**
 * Plugs a face detector in: called on every captured image before it is sent ('none' shows 'No face detected').
 * Unset (or null), the check is skipped.
 */
export function setFaceCheck(fn: FaceCheck | null): void {
  faceCheck = fn;
}

export type FaceStatus = 'live' | 'processing' | 'ok' | 'none' | 'error';
export interface FaceResult {
  status: FaceStatus;
  /** The captured JPEG as a data URL. */
  image: string | null;
}

const MAX = { width: 640, height: 480 };
const VIDEO: MediaTrackConstraints = { facingMode: 'user', width: { ideal: 640 }, height: { ideal: 480 } };

/** Step 1 of the instructions: a mirrored webcam preview, Capture (a JPEG of at most 640×480) and Recapture. */
export const FaceCapture = ({
  request,
  result,
  onResult,
}: {
  request: SigningRequest;
  result: FaceResult;
  onResult: (result: FaceResult) => void;
}) => {
  const camera = useRef<Webcam>(null);
  const [ready, setReady] = useState(false);
  const [cameraError, setCameraError] = useState(false);

  const capture = async () => {
    const video = camera.current?.video;
    const [w, h] = [video?.videoWidth || MAX.width, video?.videoHeight || MAX.height];
    const scale = Math.min(1, MAX.width / w, MAX.height / h);
    const image = camera.current?.getScreenshot({ width: Math.round(w * scale), height: Math.round(h * scale) });
    if (!image) return onResult({ status: 'error', image: null });
    onResult({ status: 'processing', image });
    try {
      if (faceCheck && (await faceCheck(image)) === 'none') return onResult({ status: 'none', image });
      const path = [request.orgId, request.refId, request.orderNo].map((p) => encodeURIComponent(String(p))).join('/');
      await signerFetch(`/v1/signer_details/${path}`, { body: { status: 'opened', selfie: image } });
      onResult({ status: 'ok', image });
    } catch (error) {
      // The server's face check comes later: for now any 4xx (415 not an image, 400…) means "no face".
      const refused = error instanceof ApiError && error.status >= 400 && error.status < 500;
      onResult({ status: refused ? 'none' : 'error', image });
    }
  };

  const recapture = () => {
    setReady(false);
    onResult({ status: 'live', image: null });
  };

  const { status, image } = result;
  return (
    <div className="capture">
      <div className="camera">
        {image ? (
          <img className="camera-view" src={image} alt={DialogTexts.faceImage} />
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
        {status === 'processing' && (
          <div className="camera-overlay" role="status">
            <span className="spinner spinner-light" aria-hidden="true" />
            <span>{SignerTexts.faceProcessing}</span>
          </div>
        )}
      </div>
      <div className="capture-message">
        {status === 'ok' && (
          <p role="status" className="success-text">
            {SignerTexts.faceCaptured}
          </p>
        )}
        {(status === 'none' || status === 'error' || (cameraError && !image)) && (
          <p role="alert" className="error-text">
            {status === 'none'
              ? SignerTexts.noFace
              : status === 'error'
                ? SignerTexts.faceError
                : Messages.cameraDenied}
          </p>
        )}
      </div>
      <div className="capture-buttons">
        {image ? (
          <Button variant="outline" onClick={recapture} disabled={status === 'processing'}>
            {SignerTexts.recapture}
          </Button>
        ) : (
          <Button onClick={() => void capture()} disabled={!ready}>
            {SignerTexts.capture}
          </Button>
        )}
      </div>
    </div>
  );
};
