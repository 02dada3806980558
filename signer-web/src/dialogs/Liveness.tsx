import { Limits, scoreBlinks } from '@esign/contract';
import type { FrameReading, TextKey } from '@esign/contract';
import { Suspense, useEffect, useRef, useState } from 'react';
import type Webcam from 'react-webcam';
import { Button } from '../components';
import { useI18n } from '../i18n';
import { usePreviewFaces, useFaceEngine } from '../face/useFaceEngine';
import { LazyWebcam, recorderType } from './media';

const VIDEO: MediaTrackConstraints = { facingMode: 'user', width: { ideal: 640 }, height: { ideal: 480 } };

/** The frames looked at while recording: one at most this often (about 13 a second; fewer on a slow device). */
const SAMPLE_MS = 75;

interface Recording {
  recorder: MediaRecorder;
  timers: number[];
  /** The frame sampling of this recording: stopped with it. */
  sampling: { stopped: boolean; timer: number };
}

/** What the browser saw of the recording so far: frames read, blinks found, faces in the latest frame. */
interface Seen {
  frames: number;
  blinks: number;
  faces: number;
}

/**
 * Step 2 of the instructions: a mirrored preview, Start Recording (exactly Limits.videoRecordingMs, WebM where the
 * browser records it), a countdown while 'Recording...', then Re-record. The recording goes to the parent, which
 * has the server analyse it. Meanwhile the browser's face models read frames of the preview (about 13 a second)
 * for live feedback only: 'Blink detected' once its blink scoring sees one, or a prompt to blink.
 */
export const Liveness = ({
  video,
  busy,
  onVideo,
}: {
  video: Blob | null;
  busy: boolean;
  onVideo: (video: Blob | null) => void;
}) => {
  const { t } = useI18n();
  const camera = useRef<Webcam>(null);
  const stream = useRef<MediaStream | null>(null);
  const recording = useRef<Recording | null>(null);
  const [ready, setReady] = useState(false);
  const [failed, setFailed] = useState(false);
  const [left, setLeft] = useState<number | null>(null);
  const { engine } = useFaceEngine();
  const engineRef = useRef(engine);
  useEffect(() => {
    engineRef.current = engine;
  }, [engine]);
  const [seen, setSeen] = useState<Seen | null>(null);
  const isRecording = left !== null;
  const inView = usePreviewFaces(engine, () => camera.current?.video, ready && !isRecording && !busy && !video);

  const stopSampling = (sampling: Recording['sampling']) => {
    sampling.stopped = true;
    window.clearTimeout(sampling.timer);
  };

  /** Reads frames of the preview until the recording stops, scoring the blinks seen so far after each. */
  const sample = (sampling: Recording['sampling']) => {
    const frames: FrameReading[] = [];
    const next = async () => {
      const began = performance.now();
      const current = engineRef.current;
      const element = camera.current?.video;
      if (current && element) {
        try {
          const reading = await current.read(element);
          if (reading && !sampling.stopped) {
            frames.push(reading);
            setSeen({ frames: frames.length, blinks: scoreBlinks(frames).blinks, faces: reading.faces });
          }
        } catch {
          // Only the hint is lost: the server analyses the recording anyway.
          stopSampling(sampling);
          setSeen(null);
        }
      }
      if (!sampling.stopped)
        sampling.timer = window.setTimeout(() => void next(), Math.max(0, SAMPLE_MS - (performance.now() - began)));
    };
    void next();
  };

  const abandon = () => {
    const current = recording.current;
    recording.current = null;
    current?.timers.forEach((timer) => window.clearTimeout(timer));
    if (current) stopSampling(current.sampling);
    if (current && current.recorder.state !== 'inactive') current.recorder.stop();
  };
  // Leaving the step mid-recording drops the recording; the webcam stops its own stream when it unmounts.
  useEffect(() => abandon, []);

  const start = () => {
    const source = stream.current;
    if (!source || recording.current) return;
    let recorder: MediaRecorder;
    try {
      const type = recorderType();
      recorder = new MediaRecorder(source, type ? { mimeType: type } : undefined);
    } catch {
      setFailed(true);
      return;
    }
    onVideo(null);
    const chunks: Blob[] = [];
    recorder.ondataavailable = (event) => {
      if (event.data.size) chunks.push(event.data);
    };
    const sampling = { stopped: false, timer: 0 };
    recorder.onstop = () => {
      stopSampling(sampling);
      if (recording.current?.recorder !== recorder) return;
      recording.current = null;
      setLeft(null);
      onVideo(new Blob(chunks, { type: recorder.mimeType || 'video/webm' }));
    };
    const startedAt = performance.now();
    const countdown = window.setInterval(
      () => setLeft(Math.max(0, Limits.videoRecordingMs - (performance.now() - startedAt))),
      200,
    );
    const stop = window.setTimeout(() => {
      window.clearInterval(countdown);
      stopSampling(sampling);
      if (recorder.state !== 'inactive') recorder.stop();
    }, Limits.videoRecordingMs);
    recording.current = { recorder, timers: [countdown, stop], sampling };
    setLeft(Limits.videoRecordingMs);
    setSeen(null);
    recorder.start();
    sample(sampling);
  };

  // Before recording: the prompt (or that no face is in view); while recording: a blink once one is seen; after it:
  // whether one was seen. Nothing when the models are not there (the server still analyses the video).
  const hint: TextKey | null = isRecording
    ? seen?.blinks
      ? 'page.blinkDetected'
      : seen?.faces === 0
        ? 'page.noFaceInView'
        : 'page.blinkPrompt'
    : video
      ? seen
        ? seen.blinks
          ? 'page.blinkDetected'
          : 'page.noBlinkSeen'
        : null
      : inView === 0
        ? 'page.noFaceInView'
        : 'page.blinkPrompt';
  const tone = hint === 'page.blinkDetected' ? 'ok' : hint === 'page.blinkPrompt' ? 'info' : 'warn';
  return (
    <div className="capture">
      <div className="camera">
        <Suspense fallback={<div className="camera-view" aria-busy="true" />}>
          <LazyWebcam
            ref={camera}
            className="camera-view"
            audio={false}
            mirrored
            videoConstraints={VIDEO}
            onUserMedia={(media) => {
              stream.current = media;
              setReady(true);
              setFailed(false);
            }}
            onUserMediaError={() => setFailed(true)}
          />
        </Suspense>
        {isRecording && (
          <div className="recording-badge" aria-hidden="true" data-testid="recording-countdown">
            <span className="recording-dot" />
            {Math.ceil(left / 1000)}
          </div>
        )}
        <p
          className={`face-hint face-hint-${tone}`}
          data-testid="face-hint"
          data-blinks={seen?.blinks ?? ''}
          aria-live="polite"
          hidden={!hint || failed}
        >
          {hint && t(hint)}
        </p>
      </div>
      {failed && (
        <p role="alert" className="error-text">
          {t('messages.cameraDenied')}
        </p>
      )}
      <div className="capture-buttons">
        <Button
          variant={video ? 'outline' : 'primary'}
          onClick={start}
          disabled={!ready || isRecording || busy || failed}
        >
          {isRecording ? t('page.recording') : video ? t('page.rerecord') : t('page.startRecording')}
        </Button>
      </div>
    </div>
  );
};
