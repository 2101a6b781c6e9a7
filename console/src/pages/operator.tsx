import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link } from 'react-router';
import { ActionButton, Form } from '../components/form';
import { ListView } from '../components/list';
import { Logo } from '../components/logo';
import { ErrorBox, Section, Status } from '../components/ui';
import { api, get, post, put } from '../lib/api';
import { setOperatorToken } from '../lib/session';
import { useOperatorToken } from '../lib/session-hooks';

const op = { operator: true } as const;

/** The figures of /_stratus/metrics worth a glance (Prometheus text, summed by name). */
function glance(text: string): [string, number][] {
  const sums = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (!m?.[1] || !m[3]) continue;
    if (m[1].endsWith('_bucket')) continue;
    sums.set(m[1], (sums.get(m[1]) ?? 0) + Number(m[3]));
  }
  return [...sums.entries()].filter(([, v]) => Number.isFinite(v)).slice(0, 40);
}

interface Jobs {
  counts: Record<string, number>;
  lag_seconds: number;
  runner: {
    in_process: boolean;
    worker_id: string;
    succeeded: number;
    failed: number;
    retried: number;
    steps: number;
  };
  workers: { id: string; running: number }[];
}

/** The operator panel: accounts, reset, snapshots, clock, timing, faults, jobs, metrics. */
export function OperatorPanel() {
  const token = useOperatorToken();
  const client = useQueryClient();
  const [draft, setDraft] = useState('');
  const [error, setError] = useState<unknown>();
  const [message, setMessage] = useState<string>();
  const refresh = () => client.invalidateQueries();
  const clock = useQuery({
    queryKey: ['/_stratus/clock'],
    enabled: !!token,
    queryFn: () => get<{ mode: string; now: string }>('/_stratus/clock', op),
  });
  const timing = useQuery({
    queryKey: ['/_stratus/timing'],
    enabled: !!token,
    queryFn: () => get<{ profile: string }>('/_stratus/timing', op),
  });
  const faults = useQuery({
    queryKey: ['/_stratus/faults'],
    enabled: !!token,
    queryFn: () => get<unknown>('/_stratus/faults', op),
  });
  const jobs = useQuery({
    queryKey: ['/_stratus/jobs', 'summary'],
    enabled: !!token,
    refetchInterval: 3000,
    queryFn: () => get<Jobs>('/_stratus/jobs', { ...op, query: { page_size: 25 } }),
  });
  const metrics = useQuery({
    queryKey: ['/_stratus/metrics'],
    enabled: !!token,
    refetchInterval: 5000,
    queryFn: async () =>
      glance(await (await api<Response>('GET', '/_stratus/metrics', { ...op, raw: true })).text()),
  });
  const signIn = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    setOperatorToken(draft.trim());
    try {
      await get('/_stratus/clock', op);
      setDraft('');
    } catch (err) {
      setOperatorToken(undefined);
      setError(err);
    }
  };
  return (
    <>
      <a className="skip" href="#main">
        Skip to the page
      </a>
      <header className="topbar">
        <Link to="/" className="brand">
          <Logo /> Stratus
        </Link>
        <span>Operator panel</span>
        <div className="who">
          <Link className="btn secondary" to="/console">
            Console
          </Link>
          {token ? (
            <button
              type="button"
              className="secondary"
              onClick={() => {
                setOperatorToken(undefined);
                client.clear();
              }}
            >
              Forget the operator token
            </button>
          ) : null}
        </div>
      </header>
      <main id="main" className="landing-main">
        <h1>Operator panel</h1>
        {!token ? (
          <form className="card" onSubmit={signIn}>
            <p>
              The emulator controls need the operator token the first start printed (or{' '}
              <code>STRATUS_OPERATOR_TOKEN</code>; <code>stratus operator-token</code> draws a new
              one).
            </p>
            <ErrorBox error={error} />
            <label htmlFor="operator-token">Operator token</label>
            <input
              id="operator-token"
              type="password"
              autoComplete="off"
              value={draft}
              onChange={(e) => setDraft(e.target.value)}
              required
            />
            <div className="actions">
              <button type="submit">Use this token</button>
            </div>
          </form>
        ) : (
          <>
            {message ? (
              <p className="notice" role="status">
                {message}
              </p>
            ) : null}
            <ListView<{
              euuid: string;
              email: string;
              company: string;
              balance: number;
              active_since: string;
              users: { username: string; restricted: boolean }[];
            }>
              path="/_stratus/accounts"
              title="Accounts"
              operator
              rowKey={(a) => a.euuid}
              columns={[
                { key: 'euuid', label: 'euuid', render: (a) => <code>{a.euuid}</code> },
                { key: 'email', label: 'Email' },
                {
                  key: 'users',
                  label: 'Users',
                  render: (a) =>
                    a.users
                      .map((u) => `${u.username}${u.restricted ? ' (restricted)' : ''}`)
                      .join(', '),
                },
                { key: 'balance', label: 'Balance', render: (a) => `$${a.balance.toFixed(2)}` },
                { key: 'active_since', label: 'Since' },
                {
                  key: 'x',
                  label: 'Reset',
                  render: (a) => (
                    <ActionButton
                      label={`Reset ${a.email}`}
                      secondary
                      confirm={`Remove everything account ${a.email} owns (its users and tokens stay)?`}
                      run={async () => {
                        await post('/_stratus/reset', { euuid: a.euuid }, op);
                        setMessage(`Account ${a.email} is back to its first state.`);
                        await refresh();
                      }}
                    />
                  ),
                },
              ]}
            />
            <Section title="Reset and snapshots">
              <div className="actions">
                <ActionButton
                  label="Reset everything"
                  danger
                  confirm="Every account back to the first-start state? This cannot be undone."
                  run={async () => {
                    const r = await post<{ admin?: { token: string } }>('/_stratus/reset', {}, op);
                    setMessage(
                      r.admin
                        ? `Reset. The new admin token (shown once): ${r.admin.token}`
                        : 'Reset: every account is back to the first-start state.',
                    );
                    await refresh();
                  }}
                />
                <ActionButton
                  label="Export a snapshot"
                  secondary
                  run={async () => {
                    const res = await api<Response>('GET', '/_stratus/snapshot', {
                      ...op,
                      raw: true,
                    });
                    const url = URL.createObjectURL(await res.blob());
                    const a = document.createElement('a');
                    a.href = url;
                    a.download = 'stratus-snapshot.ndjson';
                    a.click();
                    URL.revokeObjectURL(url);
                  }}
                />
              </div>
              <Form
                fields={[
                  {
                    name: 'file',
                    label: 'Import a snapshot (replaces the whole state)',
                    type: 'file',
                    required: true,
                  },
                ]}
                submitLabel="Import snapshot"
                danger
                onSubmit={async (v) => {
                  if (!(v.file instanceof File)) throw new Error('Choose a snapshot file.');
                  const r = await api<{ tables: number; rows: number }>(
                    'POST',
                    '/_stratus/snapshot',
                    { ...op, body: v.file, contentType: 'application/x-ndjson' },
                  );
                  setMessage(`Imported ${r.rows} rows in ${r.tables} tables.`);
                  await refresh();
                }}
              />
            </Section>
            <div className="grid">
              <Section title="Clock">
                <ErrorBox error={clock.error} />
                {clock.data ? (
                  <p data-testid="clock">
                    {clock.data.mode} — {clock.data.now}
                  </p>
                ) : null}
                <div className="actions">
                  <ActionButton
                    label={clock.data?.mode === 'manual' ? 'Back to real time' : 'Manual time'}
                    secondary
                    run={async () => {
                      await put(
                        '/_stratus/clock',
                        { mode: clock.data?.mode === 'manual' ? 'real' : 'manual' },
                        op,
                      );
                      await refresh();
                    }}
                  />
                </div>
                <Form
                  fields={[
                    {
                      name: 'seconds',
                      label: 'Advance by (seconds)',
                      type: 'number',
                      initial: 3600,
                    },
                  ]}
                  submitLabel="Advance the clock"
                  onSubmit={async (v) => {
                    await post('/_stratus/clock/advance', { seconds: v.seconds }, op);
                    await refresh();
                  }}
                />
                <Form
                  fields={[
                    { name: 'days', label: 'Advance by (days)', type: 'number', initial: 31 },
                  ]}
                  submitLabel="Advance by days"
                  onSubmit={async (v) => {
                    await post('/_stratus/clock/advance', { seconds: Number(v.days) * 86400 }, op);
                    await refresh();
                  }}
                />
              </Section>
              <Section title="Timing">
                {timing.data ? (
                  <p>
                    Profile: <strong data-testid="timing">{timing.data.profile}</strong>
                  </p>
                ) : null}
                <Form
                  key={timing.data?.profile}
                  fields={[
                    {
                      name: 'profile',
                      label: 'Timing profile',
                      type: 'select',
                      required: true,
                      initial: timing.data?.profile ?? 'fast',
                      options: ['instant', 'fast', 'realistic'].map((p) => ({
                        value: p,
                        label: p,
                      })),
                    },
                  ]}
                  submitLabel="Set timing"
                  onSubmit={async (v) => {
                    await put('/_stratus/timing', v, op);
                    await refresh();
                  }}
                />
              </Section>
              <Section title="Jobs and workers">
                <ErrorBox error={jobs.error} />
                {jobs.data ? (
                  <dl className="details">
                    {['queued', 'running', 'succeeded', 'failed'].map((s) => (
                      <div key={s}>
                        <dt>{s}</dt>
                        <dd>{jobs.data.counts[s] ?? 0}</dd>
                      </div>
                    ))}
                    <div>
                      <dt>oldest due job waits</dt>
                      <dd>{jobs.data.lag_seconds.toFixed(1)} s</dd>
                    </div>
                    <div>
                      <dt>this process</dt>
                      <dd>
                        {jobs.data.runner.in_process
                          ? `worker ${jobs.data.runner.worker_id}: ${jobs.data.runner.steps} steps`
                          : 'no worker'}
                      </dd>
                    </div>
                    <div>
                      <dt>busy workers</dt>
                      <dd>
                        {jobs.data.workers.map((w) => `${w.id} (${w.running})`).join(', ') ||
                          'none'}
                      </dd>
                    </div>
                  </dl>
                ) : null}
              </Section>
            </div>
            <ListView<{
              id: number;
              name: string;
              status: string;
              attempts: number;
              run_at: string;
              locked_by: string | null;
              last_error: string | null;
            }>
              path="/_stratus/jobs"
              title="Jobs"
              operator
              rowKey={(j) => j.id}
              columns={[
                { key: 'id', label: 'Id' },
                { key: 'name', label: 'Job' },
                { key: 'status', label: 'Status', render: (j) => <Status value={j.status} /> },
                { key: 'attempts', label: 'Attempts' },
                { key: 'run_at', label: 'Due' },
                { key: 'locked_by', label: 'Worker' },
                { key: 'last_error', label: 'Last error' },
              ]}
            />
            <Section title="Fault rules">
              <ErrorBox error={faults.error} />
              {faults.data ? (
                <Form
                  key={JSON.stringify(faults.data)}
                  fields={[
                    {
                      name: 'rules',
                      label: 'Fault rules (JSON)',
                      type: 'json',
                      initial: JSON.stringify(faults.data, null, 2),
                    },
                  ]}
                  submitLabel="Save fault rules"
                  onSubmit={async (v) => {
                    await put('/_stratus/faults', v.rules ?? { rules: [] }, op);
                    await refresh();
                  }}
                />
              ) : null}
            </Section>
            <Section title="Metrics at a glance">
              <ErrorBox error={metrics.error} />
              <dl className="details">
                {(metrics.data ?? []).map(([k, v]) => (
                  <div key={k}>
                    <dt>{k.replace(/^stratus_/, '').replace(/_/g, ' ')}</dt>
                    <dd>{Number.isInteger(v) ? v : v.toFixed(3)}</dd>
                  </div>
                ))}
              </dl>
            </Section>
          </>
        )}
      </main>
    </>
  );
}
