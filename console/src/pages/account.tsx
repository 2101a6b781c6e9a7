import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { ActionButton, Disclosure, Form } from '../components/form';
import { useCan } from '../components/layout';
import { ListView } from '../components/list';
import { Details, ErrorBox, Loading, Section, Status, usd } from '../components/ui';
import { del, get, type Page, post, put } from '../lib/api';
import { usePolicies } from '../lib/catalogue';
import { type ApiEvent, actionWords, entityWords } from '../lib/events';
import type { Grants } from '../lib/perms';

const eventColumns = [
  { key: 'created', label: 'When' },
  { key: 'action', label: 'Action', render: (e: ApiEvent) => actionWords(e.action) },
  { key: 'entity', label: 'Entity', render: (e: ApiEvent) => entityWords(e) },
  { key: 'status', label: 'Status', render: (e: ApiEvent) => <Status value={e.status} /> },
  { key: 'percent_complete', label: '%' },
  { key: 'username', label: 'By' },
];

/** `/console`: what the account has, what it owes, what just happened. */
export function Dashboard() {
  const can = useCan();
  const count = (path: string, enabled = true) =>
    // biome-ignore lint/correctness/useHookAtTopLevel: called the same number of times on every render.
    useQuery({
      queryKey: [path, 'count'],
      enabled,
      queryFn: () => get<Page<unknown>>(path, { query: { page_size: 25 } }),
    });
  const instances = count('/compute/instances', can.see('compute'));
  const volumes = count('/volumes', can.see('volume'));
  const firewalls = count('/networking/firewalls', can.see('firewall'));
  const account = useQuery({
    queryKey: ['/account'],
    enabled: can.account !== null,
    queryFn: () =>
      get<{ balance: number; balance_uninvoiced: number; company: string; email: string }>(
        '/account',
      ),
  });
  const stat = (label: string, q: { data?: Page<unknown> }, to: string) => (
    <Link className="stat" to={to}>
      <span className="n">{q.data?.results ?? '…'}</span> {label}
    </Link>
  );
  return (
    <>
      <h1>Overview</h1>
      <div className="stats">
        {can.see('compute') ? stat('instances', instances, '/console/instances') : null}
        {can.see('volume') ? stat('volumes', volumes, '/console/volumes') : null}
        {can.see('firewall') ? stat('firewalls', firewalls, '/console/firewalls') : null}
        {account.data ? (
          <Link className="stat" to="/console/billing">
            <span className="n">{usd(account.data.balance_uninvoiced)}</span> accrued this month
          </Link>
        ) : null}
      </div>
      <ListView<ApiEvent>
        path="/account/events"
        title="Recent events"
        columns={eventColumns}
        rowKey={(e) => e.id}
      />
    </>
  );
}

/** The event feed with its filters. */
export function Events() {
  return (
    <>
      <h1>Events</h1>
      <ListView<ApiEvent>
        path="/account/events"
        title="Events"
        rowKey={(e) => e.id}
        filters={[
          { key: 'action', label: 'Action (API name)' },
          { key: 'entity.type', label: 'Entity type' },
          { key: 'entity.id', label: 'Entity id', type: 'number' },
          { key: 'username', label: 'User' },
          { key: 'seen', label: 'Seen', type: 'boolean' },
        ]}
        columns={eventColumns}
      />
    </>
  );
}

interface User {
  username: string;
  email: string;
  restricted: boolean;
  tfa_enabled: boolean;
  ssh_keys: string[];
}

/** The account's `interfaces_for_new_computes` values, in words. */
const INTERFACE_SETTINGS = [
  { value: 'legacy_config_only', label: 'Configuration profile interfaces (legacy) only' },
  {
    value: 'legacy_config_default_but_compute_allowed',
    label: 'Legacy by default; compute interfaces allowed',
  },
  {
    value: 'compute_default_but_legacy_config_allowed',
    label: 'Compute interfaces by default; legacy allowed',
  },
  { value: 'compute_only', label: 'Compute interfaces (new generation) only' },
];

export function AccountPage() {
  const can = useCan();
  const policies = usePolicies();
  const client = useQueryClient();
  const account = useQuery({
    queryKey: ['/account'],
    queryFn: () => get<Record<string, unknown>>('/account'),
  });
  const settings = useQuery({
    queryKey: ['/account/settings'],
    queryFn: () => get<Record<string, unknown>>('/account/settings'),
  });
  const writable = can.account === 'read_write';
  return (
    <>
      <h1>Account</h1>
      <ErrorBox error={account.error} />
      {account.data ? (
        <Section title="Contact and billing details">
          <Details value={account.data} omit={['active_promotions', 'capabilities']} />
          {writable ? (
            <Disclosure label="Edit contact details">
              <Form
                fields={[
                  'company',
                  'first_name',
                  'last_name',
                  'email',
                  'phone',
                  'address_1',
                  'city',
                  'state',
                  'zip',
                  'country',
                ].map((k) => ({
                  name: k,
                  label: k.replace(/_/g, ' '),
                  initial: String(account.data[k] ?? ''),
                }))}
                submitLabel="Save details"
                onSubmit={async (v) => {
                  await put('/account', v);
                  await client.invalidateQueries();
                }}
              />
            </Disclosure>
          ) : null}
        </Section>
      ) : null}
      {/* The settings' own failure (the account's, the same for both, is shown above). */}
      {account.error ? null : <ErrorBox error={settings.error} />}
      {settings.data ? (
        <Section title="Settings">
          <Details value={settings.data} />
          {writable ? (
            <Disclosure label="Edit settings">
              <Form
                fields={[
                  {
                    name: 'backups_enabled',
                    label: 'Back up new instances',
                    type: 'checkbox',
                    initial: settings.data.backups_enabled === true,
                  },
                  {
                    name: 'network_helper',
                    label: 'Network helper',
                    type: 'checkbox',
                    initial: settings.data.network_helper === true,
                  },
                  // The defaults of new instances: the unrestricted user's to choose.
                  ...(can.unrestricted
                    ? [
                        {
                          name: 'maintenance_policy',
                          label: 'Default maintenance policy of new instances',
                          type: 'select' as const,
                          required: true,
                          options: policies,
                          initial: String(settings.data.maintenance_policy ?? ''),
                        },
                        {
                          name: 'interfaces_for_new_computes',
                          label: 'Network interfaces of new instances',
                          type: 'select' as const,
                          required: true,
                          options: INTERFACE_SETTINGS,
                          initial: String(settings.data.interfaces_for_new_computes ?? ''),
                        },
                      ]
                    : []),
                ]}
                submitLabel="Save settings"
                onSubmit={async (v) => {
                  await put('/account/settings', v);
                  await client.invalidateQueries();
                }}
              />
            </Disclosure>
          ) : null}
        </Section>
      ) : null}
      {can.unrestricted ? (
        <>
          <ListView<User>
            path="/account/users"
            title="Users"
            rowKey={(u) => u.username}
            filters={[
              { key: 'username', label: 'User name' },
              { key: 'email', label: 'Email' },
              { key: 'restricted', label: 'Restricted', type: 'boolean' },
            ]}
            columns={[
              {
                key: 'username',
                label: 'User',
                render: (u) => (
                  <Link to={`/console/account/users/${u.username}`}>{u.username}</Link>
                ),
              },
              { key: 'email', label: 'Email' },
              { key: 'restricted', label: 'Restricted' },
              { key: 'tfa_enabled', label: 'Two-factor' },
            ]}
          />
          <Disclosure label="Add a user">
            <Form
              fields={[
                { name: 'username', label: 'User name', required: true },
                { name: 'email', label: 'Email', type: 'email', required: true },
                {
                  name: 'restricted',
                  label: 'Restricted (grants decide what it sees)',
                  type: 'checkbox',
                  initial: true,
                },
              ]}
              submitLabel="Add user"
              onSubmit={async (v) => {
                await post('/account/users', v);
                await client.invalidateQueries();
              }}
            />
          </Disclosure>
          <ListView<{
            id: number;
            username: string;
            ip: string;
            datetime: string;
            status: string;
            restricted: boolean;
          }>
            path="/account/logins"
            title="Sign-ins"
            columns={[
              { key: 'datetime', label: 'When' },
              { key: 'username', label: 'User' },
              { key: 'ip', label: 'Address' },
              { key: 'status', label: 'Result', render: (r) => <Status value={r.status} /> },
            ]}
          />
          <ListView<{
            id: string;
            label: string;
            redirect_uri: string;
            public: boolean;
            status: string;
          }>
            path="/account/oauth-clients"
            title="OAuth clients"
            rowKey={(c) => c.id}
            columns={[
              { key: 'label', label: 'Label' },
              { key: 'id', label: 'Client id' },
              { key: 'redirect_uri', label: 'Redirect URI' },
              { key: 'public', label: 'Public' },
              {
                key: 'x',
                label: 'Delete',
                render: (c) => (
                  <ActionButton
                    label="Delete"
                    secondary
                    confirm={`Delete ${c.label}?`}
                    run={async () => {
                      await del(`/account/oauth-clients/${c.id}`);
                      await client.invalidateQueries();
                    }}
                  />
                ),
              },
            ]}
          />
        </>
      ) : null}
    </>
  );
}

type Perm = 'read_only' | 'read_write' | null;
const GLOBAL_FLAGS = [
  'add_computes',
  'add_volumes',
  'add_firewalls',
  'add_nodebalancers',
  'add_vpcs',
  'add_images',
  'add_stackscripts',
  'add_domains',
  'add_databases',
  'add_longview',
  'cancel_account',
  'longview_subscription',
];
const TYPES = [
  'compute',
  'volume',
  'firewall',
  'nodebalancer',
  'vpc',
  'image',
  'stackscript',
  'domain',
  'database',
  'longview',
];

/** A user: details and, for a restricted user, its grants (global and per entity). */
export function UserDetail() {
  const { username } = useParams();
  const client = useQueryClient();
  const navigate = useNavigate();
  const path = `/account/users/${username}`;
  const user = useQuery({ queryKey: [path], queryFn: () => get<User>(path) });
  const grants = useQuery({
    queryKey: [`${path}/grants`],
    enabled: user.data?.restricted === true,
    queryFn: () => get<Grants>(`${path}/grants`),
  });
  const [draft, setDraft] = useState<Grants>();
  const [error, setError] = useState<unknown>();
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    if (grants.data) setDraft(grants.data);
  }, [grants.data]);
  if (user.error) return <ErrorBox error={user.error} />;
  if (!user.data) return <Loading />;
  const entities = (t: string) =>
    (draft?.[t] as { id: number; label: string; permissions: Perm }[] | undefined) ?? [];
  const setEntity = (t: string, id: number, p: Perm) => {
    if (!draft) return;
    setSaved(false);
    setDraft({
      ...draft,
      [t]: entities(t).map((e) => (e.id === id ? { ...e, permissions: p } : e)),
    });
  };
  return (
    <>
      <div className="page-head">
        <h1>{user.data.username}</h1>
        <ActionButton
          label="Delete user"
          danger
          confirm={`Delete ${user.data.username}?`}
          run={async () => {
            await del(path);
            await client.invalidateQueries();
            navigate('/console/account');
          }}
        />
      </div>
      <Section title="User">
        <Details value={user.data as unknown as Record<string, unknown>} />
        <Disclosure label="Edit">
          <Form
            fields={[
              { name: 'email', label: 'Email', type: 'email', initial: user.data.email },
              {
                name: 'restricted',
                label: 'Restricted',
                type: 'checkbox',
                initial: user.data.restricted,
              },
            ]}
            submitLabel="Save user"
            onSubmit={async (v) => {
              await put(path, v);
              await client.invalidateQueries();
            }}
          />
        </Disclosure>
      </Section>
      {user.data.restricted ? (
        <Section title="Grants">
          <ErrorBox error={grants.error ?? error} />
          {draft ? (
            <>
              <h3>Global</h3>
              <label htmlFor="account-access">Account access</label>
              <select
                id="account-access"
                value={draft.global.account_access ?? ''}
                onChange={(e) =>
                  setDraft({
                    ...draft,
                    global: { ...draft.global, account_access: (e.target.value || null) as Perm },
                  })
                }
              >
                <option value="">none</option>
                <option value="read_only">read only</option>
                <option value="read_write">read and write</option>
              </select>
              <div>
                {GLOBAL_FLAGS.filter((f) => f in draft.global).map((f) => (
                  <label key={f} className="inline">
                    <input
                      type="checkbox"
                      checked={draft.global[f] === true}
                      onChange={(e) =>
                        setDraft({ ...draft, global: { ...draft.global, [f]: e.target.checked } })
                      }
                    />
                    {f.replace(/_/g, ' ')}
                  </label>
                ))}
              </div>
              {TYPES.filter((t) => entities(t).length > 0).map((t) => (
                <div key={t}>
                  <h3>{t}</h3>
                  {entities(t).map((e) => (
                    <div key={e.id} className="filter">
                      <label htmlFor={`g-${t}-${e.id}`}>{e.label}</label>
                      <select
                        id={`g-${t}-${e.id}`}
                        value={e.permissions ?? ''}
                        onChange={(ev) => setEntity(t, e.id, (ev.target.value || null) as Perm)}
                      >
                        <option value="">none</option>
                        <option value="read_only">read only</option>
                        <option value="read_write">read and write</option>
                      </select>
                    </div>
                  ))}
                </div>
              ))}
              <div className="actions">
                <button
                  type="button"
                  onClick={async () => {
                    setError(undefined);
                    try {
                      const body: Record<string, unknown> = { global: draft.global };
                      for (const t of TYPES)
                        if (entities(t).length > 0)
                          body[t] = entities(t).map((e) => ({
                            id: e.id,
                            permissions: e.permissions,
                          }));
                      await put(`${path}/grants`, body);
                      setSaved(true);
                      await client.invalidateQueries();
                    } catch (err) {
                      setError(err);
                    }
                  }}
                >
                  Save grants
                </button>
                {saved ? (
                  <span className="ok-text" role="status">
                    Grants saved.
                  </span>
                ) : null}
              </div>
            </>
          ) : (
            <Loading />
          )}
        </Section>
      ) : (
        <p>An unrestricted user may do everything: it has no grants.</p>
      )}
    </>
  );
}
