import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from 'react-router';
import { ActionButton, Disclosure, Form } from '../components/form';
import { useCan } from '../components/layout';
import { ListView } from '../components/list';
import { Details, ErrorBox, Loading, Section, usd } from '../components/ui';
import { del, get, type Page, post, put } from '../lib/api';
import { useGrants, useProfile } from '../lib/perms';

interface Client {
  id: number;
  label: string;
  api_key: string;
  install_code: string;
  apps: { apache: boolean; nginx: boolean; mysql: boolean };
  created: string;
  updated: string;
}

interface Subscription {
  id: string;
  label: string;
  clients_included: number;
  price: { hourly: number; monthly: number };
}

const LABEL_HELP = '3 to 32 characters: letters, digits, "-" and "_"; unique in the account.';
const apps = (c: Client) =>
  Object.entries(c.apps)
    .filter(([, on]) => on)
    .map(([a]) => a)
    .join(', ') || 'none reported';

/** Longview: the clients (their API key and install code as the API shows them) and the plan. */
export function Longview() {
  const can = useCan();
  const client = useQueryClient();
  const navigate = useNavigate();
  return (
    <>
      <h1>Longview</h1>
      <ListView<Client>
        path="/longview/clients"
        title="Clients"
        rowKey={(r) => r.id}
        filters={[{ key: 'label', label: 'Label' }]}
        columns={[
          {
            key: 'label',
            label: 'Label',
            render: (r) => <Link to={`/console/longview/${r.id}`}>{r.label}</Link>,
          },
          { key: 'api_key', label: 'API key', render: (r) => <code>{r.api_key}</code> },
          {
            key: 'install_code',
            label: 'Install code',
            render: (r) => <code>{r.install_code}</code>,
          },
          { key: 'apps', label: 'Apps', render: apps },
          { key: 'created', label: 'Created' },
        ]}
      />
      {can.add('longview') ? (
        <Disclosure label="Add a client">
          <Form
            fields={[
              { name: 'label', label: 'Label', help: `${LABEL_HELP} Default: longview<id>.` },
            ]}
            submitLabel="Add client"
            onSubmit={async (v) => {
              const c = await post<Client>('/longview/clients', v);
              await client.invalidateQueries();
              navigate(`/console/longview/${c.id}`);
            }}
          />
        </Disclosure>
      ) : null}
      <Plan />
    </>
  );
}

/** The Longview plan: Free (`{}`) or a Pro tier; changed with the `longview_subscription` grant. */
function Plan() {
  const can = useCan();
  const client = useQueryClient();
  const profile = useProfile();
  const grants = useGrants(profile.data);
  const global = grants.data?.global;
  const visible =
    can.unrestricted ||
    can.account !== null ||
    global?.longview_subscription === true ||
    global?.add_longview === true;
  const writable = can.unrestricted || global?.longview_subscription === true;
  const plan = useQuery({
    queryKey: ['/longview/plan'],
    enabled: visible,
    queryFn: () => get<Partial<Subscription>>('/longview/plan'),
  });
  const tiers = useQuery({
    queryKey: ['/longview/subscriptions'],
    queryFn: () => get<Page<Subscription>>('/longview/subscriptions'),
  });
  if (!visible) return null;
  const current = plan.data?.id ? (plan.data as Subscription) : undefined;
  const sorted = [...(tiers.data?.data ?? [])].sort(
    (a, b) => a.clients_included - b.clients_included,
  );
  return (
    <Section title="Plan">
      <ErrorBox error={plan.error ?? tiers.error} />
      {plan.data ? (
        <p data-testid="longview-plan">
          {current
            ? `${current.label}: ${current.clients_included} clients, ${usd(current.price.monthly)} a month (${usd(current.price.hourly)} an hour).`
            : 'Longview Free: up to 10 clients.'}
        </p>
      ) : (
        <Loading />
      )}
      {writable && plan.data ? (
        <Form
          key={current?.id ?? 'free'}
          fields={[
            {
              name: 'longview_subscription',
              label: 'Plan',
              type: 'select',
              required: true,
              initial: current?.id ?? 'free',
              options: [
                { value: 'free', label: 'Longview Free (10 clients)' },
                ...sorted.map((s) => ({
                  value: s.id,
                  label: `${s.label} (${s.clients_included} clients, ${usd(s.price.monthly)} a month)`,
                })),
              ],
            },
          ]}
          submitLabel="Change plan"
          onSubmit={async (v) => {
            const id = v.longview_subscription;
            await put('/longview/plan', { longview_subscription: id === 'free' ? null : id });
            await client.invalidateQueries();
          }}
        />
      ) : null}
    </Section>
  );
}

/** One client: its keys, rename, delete. */
export function LongviewClientDetail() {
  const { id } = useParams();
  const can = useCan();
  const navigate = useNavigate();
  const client = useQueryClient();
  const path = `/longview/clients/${id}`;
  const q = useQuery({ queryKey: [path], queryFn: () => get<Client>(path) });
  if (q.error) return <ErrorBox error={q.error} />;
  if (!q.data) return <Loading />;
  const c = q.data;
  const writable = can.write('longview', c.id);
  const refresh = () => client.invalidateQueries();
  return (
    <>
      <div className="page-head">
        <h1>{c.label}</h1>
        {writable ? (
          <ActionButton
            label="Delete"
            danger
            confirm={`Delete the Longview client ${c.label}?`}
            run={async () => {
              await del(path);
              await refresh();
              navigate('/console/longview');
            }}
          />
        ) : null}
      </div>
      <Section title="Client">
        <Details value={{ ...c, apps: apps(c) }} />
      </Section>
      <Section title="Installing the agent">
        <p>
          The agent is installed on a machine with this client's install code and reports with its
          API key (<code>[REDACTED]</code> without read-write access to the client).
        </p>
        <p>
          This server keeps the clients, their keys and the plan; it does not receive the agent's
          reports, so it has no Longview data to chart (every app shows as not reported).
        </p>
      </Section>
      {writable ? (
        <Disclosure label="Rename">
          <Form
            fields={[
              { name: 'label', label: 'Label', required: true, initial: c.label, help: LABEL_HELP },
            ]}
            submitLabel="Rename"
            onSubmit={async (v) => {
              await put(path, v);
              await refresh();
            }}
          />
        </Disclosure>
      ) : null}
    </>
  );
}
