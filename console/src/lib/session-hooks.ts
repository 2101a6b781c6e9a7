import { useSyncExternalStore } from 'react';
import { getOperatorToken, getSession, type Session } from './session';

function subscribe(cb: () => void) {
  window.addEventListener('stratus-session', cb);
  window.addEventListener('storage', cb);
  return () => {
    window.removeEventListener('stratus-session', cb);
    window.removeEventListener('storage', cb);
  };
}

let lastRaw: string | null = null;
let last: Session | undefined;
/** The session, re-rendering when it changes (sign-in, sign-out, a refresh). */
export function useSession(): Session | undefined {
  return useSyncExternalStore(subscribe, () => {
    const raw = sessionStorage.getItem('stratus.session');
    if (raw !== lastRaw) {
      lastRaw = raw;
      last = getSession();
    }
    return last;
  });
}

export function useOperatorToken(): string | undefined {
  return useSyncExternalStore(subscribe, getOperatorToken);
}
