import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { Logo } from '../components/logo';
import { ErrorBox, Loading } from '../components/ui';
import { useSession } from '../lib/session-hooks';

interface Info {
  version: string;
  spec_version: string;
  engine: string;
  timing: string;
  clock: { mode: string; now: string };
  workers: { in_process: boolean; busy: string[] };
  urls: Record<'api' | 's3' | 'login' | 'token' | 'docs' | 'openapi' | 'console', string>;
  console: { client_id: string; redirect_uri: string };
}

/** `/`: the server is up, what it runs, where everything is, and how to sign in. */
export function Landing() {
  const session = useSession();
  const info = useQuery({
    queryKey: ['info'],
    queryFn: async () => (await (await fetch('/_stratus/info')).json()) as Info,
  });
  const i = info.data;
  return (
    <div className="landing">
      <header className="topbar">
        <span className="brand">
          <Logo /> Stratus
        </span>
      </header>
      <main id="main" className="landing-main">
        <h1>A local compute cloud: its API, its console</h1>
        <p className="lead">
          Stratus answers the compute cloud API (v4) with the same wire format, rules, life cycles
          and events, and keeps its state across restarts.
        </p>
        <div className="actions">
          <Link className="btn" to={session ? '/console' : '/console/sign-in'}>
            {session ? 'Open the console' : 'Sign in to the console'}
          </Link>
          <Link className="btn secondary" to="/console/operator">
            Operator panel
          </Link>
        </div>
        <ErrorBox error={info.error} />
        {i ? (
          <div className="grid">
            <section className="card" aria-labelledby="server-h">
              <h2 id="server-h">The server</h2>
              <dl className="details">
                <div>
                  <dt>status</dt>
                  <dd>
                    <span className="badge ok">up</span>
                  </dd>
                </div>
                <div>
                  <dt>version</dt>
                  <dd>
                    {i.version} (API revision {i.spec_version})
                  </dd>
                </div>
                <div>
                  <dt>database engine</dt>
                  <dd>{i.engine === 'postgres' ? 'PostgreSQL' : 'SQLite'}</dd>
                </div>
                <div>
                  <dt>timing profile</dt>
                  <dd>{i.timing}</dd>
                </div>
                <div>
                  <dt>clock</dt>
                  <dd>
                    {i.clock.mode}, {i.clock.now.replace('T', ' ').slice(0, 19)} UTC
                  </dd>
                </div>
                <div>
                  <dt>workers</dt>
                  <dd>
                    {i.workers.in_process
                      ? 'jobs run in this process'
                      : 'no worker in this process'}
                    {i.workers.busy.length > 0 ? `; ${i.workers.busy.length} busy now` : ''}
                  </dd>
                </div>
              </dl>
            </section>
            <section className="card" aria-labelledby="urls-h">
              <h2 id="urls-h">Base URLs</h2>
              <dl className="details">
                {(
                  [
                    ['API', i.urls.api],
                    ['S3 data plane', i.urls.s3],
                    ['login service', i.urls.login],
                    ['token endpoint', i.urls.token],
                    ['API reference', i.urls.docs],
                    ['OpenAPI document', i.urls.openapi],
                  ] as const
                ).map(([k, v]) => (
                  <div key={k}>
                    <dt>{k}</dt>
                    <dd>
                      <code>{v}</code>
                    </dd>
                  </div>
                ))}
              </dl>
            </section>
            <section className="card wide" aria-labelledby="token-h">
              <h2 id="token-h">Getting a token</h2>
              <ol>
                <li>
                  The first start printed the default <code>admin</code> user's personal access
                  token. Use it as <code>Authorization: Bearer $TOKEN</code>:
                  <pre>curl -H "Authorization: Bearer $TOKEN" {i.urls.api}/profile</pre>
                </li>
                <li>
                  Another account:{' '}
                  <code>npm run stratus -- admin bootstrap --email E --username U</code> prints its
                  token; <code>admin token --username U</code> issues more;{' '}
                  <code>admin password --username U</code> lets a user sign in here.
                </li>
                <li>
                  OAuth: register a client at <code>POST /v4/account/oauth-clients</code> and send
                  users to <code>{i.urls.login}</code> (PKCE S256 for public clients). This console
                  is such a client: <code>{i.console.client_id}</code>.
                </li>
              </ol>
            </section>
          </div>
        ) : info.isLoading ? (
          <Loading />
        ) : null}
      </main>
    </div>
  );
}
