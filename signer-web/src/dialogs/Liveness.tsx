import { Limits, Messages, SignerTexts } from '@esign/contract';
import { Suspense, useEffect, useRef, useState } from 'react';
import { Button } from '../components';
import { LazyWebcam, recorderType } from './media';

const VIDEO: MediaTrackConstraints = { facingMode: 'user', width: { ideal: 640 }, height: { ideal: 480 } };

interface Recording {
  recorder: MediaRecorder;
  timers: number[];
}

/**
 * Step 2 of the instructions: a mirrored preview, Start Recording (exactly Limits.videoRecordingMs, WebM where the
 * browser records it), a countdown while 'Recording...', then Re-record. The recording goes to the parent.
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
  const stream = useRef<MediaStream | null>(null);
  const recording = useRef<Recording | null>(null);
  const [ready, setReady] = useState(false);
  const [failed, setFailed] = useState(false);
  const [left, setLeft] = useState<number | null>(null);

  const abandon = () => {
    const current = recording.current;
    recording.current = null;
    current?.timers.forEach((timer) => window.clearTimeout(timer));
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
    recorder.onstop = () => {
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
      if (recorder.state !== 'inactive') recorder.stop();
    }, Limits.videoRecordingMs);
    recording.current = { recorder, timers: [countdown, stop] };
    setLeft(Limits.videoRecordingMs);
    recorder.start();
  };

  const isRecording = left !== null;
  return (
    <div className="capture">
      <div className="camera">
        <Suspense fallback={<div className="camera-view" aria-busy="true" />}>
          <LazyWebcam
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
      </div>
      {failed && (
        <p role="alert" className="error-text">
          {Messages.cameraDenied}
        </p>
      )}
      <div className="capture-buttons">
        <Button
          variant={video ? 'outline' : 'primary'}
          onClick={start}
          disabled={!ready || isRecording || busy || failed}
        >
          {isRecording ? SignerTexts.recording : video ? SignerTexts.rerecord : SignerTexts.startRecording}
        </Button>
      </div>
    </div>
  );
};
