import { useEffect, useState } from 'react';
import { loadFaceEngine } from './engine';
import type { FaceEngine, FaceSource } from './engine';

export type EngineState = { status: 'loading' | 'failed'; engine: null } | { status: 'ready'; engine: FaceEngine };

/**
 * The face engine for a camera step: starts loading it when the step mounts (onnxruntime-web and the models are
 * fetched only then), 'failed' when it cannot load (the step then goes on without the browser's check).
 */
export function useFaceEngine(): EngineState {
  const [state, setState] = useState<EngineState>({ status: 'loading', engine: null });
  useEffect(() => {
    let alive = true;
    loadFaceEngine().then(
      (engine) => alive && setState({ status: 'ready', engine }),
      (error: unknown) => {
        console.warn('The face models did not load; the server checks the face alone.', error);
        if (alive) setState({ status: 'failed', engine: null });
      },
    );
    return () => {
      alive = false;
    };
  }, []);
  return state;
}

/** How often the preview is looked at for a face (a few times a second: light on a phone). */
export const PREVIEW_INTERVAL_MS = 300;

/**
 * Counts the faces in a camera preview every PREVIEW_INTERVAL_MS while `active`: null until the first answer (or
 * when the engine is missing or fails), else the number of faces.
 */
export function usePreviewFaces(
  engine: FaceEngine | null,
  source: () => FaceSource | null | undefined,
  active: boolean,
): number | null {
  const [faces, setFaces] = useState<number | null>(null);
  useEffect(() => {
    if (!engine || !active) {
      setFaces(null);
      return;
    }
    let stopped = false;
    let timer = 0;
    const look = async () => {
      const element = source();
      try {
        const found = element ? await engine.detect(element) : null;
        if (!stopped && found) setFaces(found.length);
      } catch {
        if (!stopped) setFaces(null);
      }
      if (!stopped) timer = window.setTimeout(() => void look(), PREVIEW_INTERVAL_MS);
    };
    void look();
    return () => {
      stopped = true;
      window.clearTimeout(timer);
    };
    // `source` reads a ref: a new function each render is the same source.
  }, [engine, active]);
  return faces;
}
