import { type FormEvent, useEffect, useRef, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { Logo } from '../components/logo';
import { ErrorBox } from '../components/ui';
import { get } from '../lib/api';
import { finishSignIn, startSignIn } from '../lib/oauth';
import { setSession } from '../lib/session';

/** Sign in through the login service (OAuth, PKCE), or paste a personal access token. */
export function SignIn() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const next = params.get('next') ?? '/console';
  const [token, setToken] = useState('');
  const [error, setError] = useState<unknown>();
  const paste = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    setSession({ token: token.trim(), kind: 'pat' });
    try {
      await get('/profile');
      navigate(next.startsWith('/console') ? next : '/console', { replace: true });
    } catch (err) {
      setSession(undefined);
      setError(err);
    }
  };
  return (
    <div className="auth-page">
      <header>
        <Link to="/" className="brand">
          <Logo /> Stratus
        </Link>
      </header>
      <main className="auth-card">
        <h1>Sign in to the console</h1>
        <p>With your user name and password at the login service:</p>
        <button type="button" onClick={() => void startSignIn(next)}>
          Sign in with Stratus
        </button>
        <hr />
        <form onSubmit={paste}>
          <h2>Or use a personal access token</h2>
          <ErrorBox error={error} />
          <label htmlFor="pat">Personal access token</label>
          <input
            id="pat"
            type="password"
            autoComplete="off"
            value={token}
            onChange={(e) => setToken(e.target.value)}
            required
          />
          <button type="submit" className="secondary">
            Use this token
          </button>
        </form>
      </main>
    </div>
  );
}

/** The login service's redirect: the code is traded for tokens, then the console opens. */
export function Callback() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const [error, setError] = useState<unknown>();
  const once = useRef(false);
  useEffect(() => {
    if (once.current) return;
    once.current = true;
    finishSignIn(params).then(
      (to) => navigate(to.startsWith('/console') ? to : '/console', { replace: true }),
      setError,
    );
  }, [params, navigate]);
  return (
    <div className="auth-page">
      <main className="auth-card">
        <h1>Signing in</h1>
        {error ? (
          <>
            <ErrorBox error={error} />
            <Link to="/console/sign-in">Sign in again</Link>
          </>
        ) : (
          <p role="status">Finishing the sign-in…</p>
        )}
      </main>
    </div>
  );
}
