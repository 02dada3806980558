import { Messages, RecipientMessages } from '@esign/contract';
import type { LocationResponse } from '@esign/contract';
import { useEffect } from 'react';
import type { Dispatch, SetStateAction } from 'react';
import { fill, serverMessage, signerFetch } from '../api';
import { useI18n } from '../i18n';
import { useStableCallback } from './hooks';
import { stopStream } from './media';

/** A permission check: not needed, running, passed, or refused with the text to show ('': the generic one). */
export type CheckState = 'skip' | 'pending' | 'ok' | { error: string };
export interface Checks {
  location: CheckState;
  camera: CheckState;
}

const LOCATION_TIMEOUT_MS = 15_000;

const currentPosition = (): Promise<GeolocationPosition> =>
  new Promise((resolve, reject) => {
    if (!('geolocation' in navigator)) return reject(new Error('No geolocation'));
    navigator.geolocation.getCurrentPosition(resolve, reject, { timeout: LOCATION_TIMEOUT_MS, maximumAge: 60_000 });
  });

/** The position, posted for the organisation's decision: passed, refused, or blocked with the remark to show. */
async function checkLocation(orgId: string): Promise<CheckState | { blocked: string }> {
  let position: GeolocationPosition;
  try {
    position = await currentPosition();
  } catch {
    return { error: Messages.locationDenied };
  }
  try {
    const { latitude, longitude } = position.coords;
    const decided = await signerFetch<LocationResponse>('/v1/get_location', { body: { latitude, longitude, orgId } });
    if (decided.allow_signing_from_india) return 'ok';
    return { blocked: decided.remark ?? fill(RecipientMessages.locationBlocked, { country: decided.country ?? '' }) };
  } catch (error) {
    return { error: serverMessage(error, '') };
  }
}

/** Asks for the camera once and lets it go at once (the capture steps open it again). */
async function checkCamera(): Promise<CheckState> {
  try {
    if (!navigator.mediaDevices?.getUserMedia) throw new Error('No camera API');
    stopStream(await navigator.mediaDevices.getUserMedia({ video: true }));
    return 'ok';
  } catch {
    return { error: Messages.cameraDenied };
  }
}

/** Step 0 of the instructions: the location and camera checks the request needs, run one after the other. */
export const PermissionChecks = ({
  orgId,
  checks,
  onChecks,
  onBlocked,
}: {
  orgId: string;
  checks: Checks;
  onChecks: Dispatch<SetStateAction<Checks>>;
  onBlocked: (remark: string) => void;
}) => {
  const { t } = useI18n();
  const blocked = useStableCallback(onBlocked);
  const pending = { location: checks.location === 'pending', camera: checks.camera === 'pending' };

  useEffect(() => {
    if (!pending.location && !pending.camera) return;
    let cancelled = false;
    void (async () => {
      if (pending.location) {
        const result = await checkLocation(orgId);
        if (cancelled) return;
        if (typeof result === 'object' && 'blocked' in result) {
          onChecks((all) => ({ ...all, location: { error: result.blocked } }));
          blocked(result.blocked);
          return;
        }
        onChecks((all) => ({ ...all, location: result }));
      }
      if (pending.camera) {
        const result = await checkCamera();
        if (!cancelled) onChecks((all) => ({ ...all, camera: result }));
      }
    })();
    return () => {
      cancelled = true;
    };
    // Runs once when the step is shown; results are kept by the parent, so coming back does not ask again.
  }, []);

  return (
    <ul className="checks" aria-live="polite">
      {checks.location !== 'skip' && <CheckLine label={t('page.checkingLocation')} state={checks.location} />}
      {checks.camera !== 'skip' && <CheckLine label={t('page.checkingCamera')} state={checks.camera} />}
    </ul>
  );
};

const CheckLine = ({ label, state }: { label: string; state: CheckState }) => {
  const { t, known } = useI18n();
  const kind = state === 'ok' ? 'ok' : state === 'pending' ? 'pending' : 'error';
  return (
    <li className={`check-line check-line-${kind}`}>
      <span className="check-line-icon" aria-hidden="true">
        {kind === 'pending' ? <span className="spinner spinner-small" /> : kind === 'ok' ? '✓' : '!'}
      </span>
      <span className="check-line-text">
        {label}
        {kind === 'ok' && <strong className="check-line-allowed"> {t('page.allowed')}</strong>}
        {typeof state === 'object' && (
          <span role="alert" className="error-text check-line-error">
            {state.error ? known(state.error) : t('page.faceError')}
          </span>
        )}
      </span>
    </li>
  );
};
