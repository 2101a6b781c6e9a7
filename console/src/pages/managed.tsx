import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { Link } from 'react-router';
import { Chart } from '../components/chart';
import {
  ActionButton,
  Disclosure,
  type FieldSpec,
  Form,
  removeColumn,
  type Values,
} from '../components/form';
import { ListView } from '../components/list';
import { type Column, ErrorBox, Loading, Section, Status, Tabs } from '../components/ui';
import { all, get, post, put } from '../lib/api';

interface Service {
  id: number;
  label: string;
  service_type: string;
  address: string;
  status: string;
  timeout: number;
  body: string | null;
  notes: string | null;
  consultation_group: string;
  credentials: number[];
}
interface Contact {
  id: number;
  name: string;
  email: string;
  phone: { primary: string | null; secondary: string | null };
  group: string | null;
}
interface Credential {
  id: number;
  label: string;
  last_decrypted: string | null;
}
interface Issue {
  id: number;
  created: string;
  services: number[];
  entity: { id: number; label: string; type: string };
}
interface Settings {
  id: number;
  label: string;
  group: string;
  ssh: { access: boolean; user: string | null; ip: string; port: number | null };
}
type Point = { x: number; y: number };
type Stats = { data: string[] | Record<'cpu' | 'disk' | 'swap' | 'net_in' | 'net_out', Point[]> };

const TABS = ['Services', 'Contacts', 'Credentials', 'Issues', 'SSH access', 'Statistics'] as const;

/**
 * Managed (unrestricted users): the enable action while the account does not have it; then its
 * services with their status, contacts, credentials (written, never shown back), issues, the
 * per-instance SSH settings and the account's statistics.
 */
export function Managed() {
  const client = useQueryClient();
  const settings = useQuery({
    queryKey: ['/account/settings'],
    queryFn: () => get<{ managed: boolean }>('/account/settings'),
  });
  const [tab, setTab] = useState<(typeof TABS)[number]>('Services');
  if (settings.error) return <ErrorBox error={settings.error} />;
  if (!settings.data) return <Loading />;
  if (!settings.data.managed)
    return (
      <>
        <h1>Managed</h1>
        <Section title="Managed is not enabled">
          <p>
            Managed watches the account's services, opens an issue (with a support ticket) when one
            fails its check, and covers every instance of the account.
          </p>
          <ActionButton
            label="Enable Managed"
            confirm="Enable Managed for the whole account?"
            run={async () => {
              await post('/account/settings/managed-enable');
              await client.invalidateQueries();
            }}
          />
        </Section>
      </>
    );
  return (
    <>
      <h1>Managed</h1>
      <Tabs label="Managed" names={TABS} value={tab} onChange={setTab} />
      <div role="tabpanel" aria-label={tab}>
        {tab === 'Services' ? <Services /> : null}
        {tab === 'Contacts' ? <Contacts /> : null}
        {tab === 'Credentials' ? <Credentials /> : null}
        {tab === 'Issues' ? <Issues /> : null}
        {tab === 'SSH access' ? <SshAccess /> : null}
        {tab === 'Statistics' ? <ManagedStats /> : null}
      </div>
    </>
  );
}

const useCredentials = () =>
  useQuery({
    queryKey: ['/managed/credentials', 'all'],
    queryFn: () => all<Credential>('/managed/credentials'),
  });

/** A column whose button opens the row in the edit form below the table. */
function editColumn<T>(setEditing: (row: T) => void): Column<T> {
  return {
    key: 'edit',
    label: 'Edit',
    render: (r) => (
      <button type="button" className="secondary" onClick={() => setEditing(r)}>
        Edit
      </button>
    ),
  };
}

function Services() {
  const client = useQueryClient();
  const [editing, setEditing] = useState<Service>();
  const refresh = () => client.invalidateQueries();
  const creds = useCredentials();
  const label = (id: number) => creds.data?.find((c) => c.id === id)?.label ?? `#${id}`;
  return (
    <>
      <ListView<Service>
        path="/managed/services"
        title="Services"
        rowKey={(r) => r.id}
        columns={[
          { key: 'label', label: 'Label' },
          { key: 'service_type', label: 'Type' },
          { key: 'address', label: 'Address' },
          { key: 'status', label: 'Status', render: (r) => <Status value={r.status} /> },
          { key: 'timeout', label: 'Timeout (s)' },
          {
            key: 'credentials',
            label: 'Credentials',
            render: (r) => r.credentials.map(label).join(', ') || '—',
          },
          {
            key: 'toggle',
            label: 'Checks',
            render: (r) => (
              <ActionButton
                secondary
                label={r.status === 'disabled' ? 'Enable' : 'Disable'}
                run={async () => {
                  await post(
                    `/managed/services/${r.id}/${r.status === 'disabled' ? 'enable' : 'disable'}`,
                  );
                  await refresh();
                }}
              />
            ),
          },
          editColumn(setEditing),
          removeColumn('Delete', (r) => `/managed/services/${r.id}`, refresh),
        ]}
      />
      {editing ? (
        <Section title={`Edit ${editing.label}`}>
          <Form
            key={editing.id}
            fields={[
              { name: 'label', label: 'Label', required: true, initial: editing.label },
              { name: 'address', label: 'Address', required: true, initial: editing.address },
              {
                name: 'timeout',
                label: 'Timeout (seconds)',
                type: 'number',
                required: true,
                initial: editing.timeout,
              },
              { name: 'body', label: 'Expected text in the answer', initial: editing.body ?? '' },
              {
                name: 'consultation_group',
                label: 'Consultation group',
                initial: editing.consultation_group,
              },
              { name: 'notes', label: 'Notes', type: 'textarea', initial: editing.notes ?? '' },
            ]}
            submitLabel="Save service"
            onSubmit={async (v) => {
              // Emptied optional fields are cleared, not left as they were.
              await put(`/managed/services/${editing.id}`, {
                body: null,
                notes: null,
                consultation_group: '',
                ...v,
              });
              setEditing(undefined);
              await refresh();
            }}
          />
        </Section>
      ) : null}
      <Disclosure label="Add a service">
        <Form
          fields={[
            { name: 'label', label: 'Label', required: true, help: '3 to 64 characters.' },
            {
              name: 'service_type',
              label: 'Type',
              type: 'select',
              required: true,
              initial: 'url',
              options: [
                { value: 'url', label: 'URL (HTTP GET)' },
                { value: 'tcp', label: 'TCP (host:port)' },
              ],
            },
            { name: 'address', label: 'Address', required: true, help: 'A URL or host:port.' },
            { name: 'timeout', label: 'Timeout (seconds)', type: 'number', required: true },
            { name: 'body', label: 'Expected text in the answer' },
            { name: 'consultation_group', label: 'Consultation group' },
            { name: 'region', label: 'Region (private addresses only)' },
            { name: 'notes', label: 'Notes', type: 'textarea' },
            {
              name: 'credential',
              label: 'Credential',
              type: 'select',
              options: (creds.data ?? []).map((c) => ({ value: String(c.id), label: c.label })),
            },
          ]}
          submitLabel="Add service"
          onSubmit={async ({ credential, ...v }: Values) => {
            await post('/managed/services', {
              ...v,
              ...(credential ? { credentials: [Number(credential)] } : {}),
            });
            await refresh();
          }}
        />
      </Disclosure>
    </>
  );
}

const contactFields = (c?: Contact): FieldSpec[] => [
  { name: 'name', label: 'Name', required: true, initial: c?.name ?? '' },
  { name: 'email', label: 'Email', type: 'email', required: true, initial: c?.email ?? '' },
  { name: 'primary', label: 'Phone', initial: c?.phone.primary ?? '' },
  { name: 'secondary', label: 'Second phone', initial: c?.phone.secondary ?? '' },
  { name: 'group', label: 'Group', initial: c?.group ?? '' },
];
/** An emptied phone or group is cleared (null), as the API takes it. */
const contactBody = ({ primary, secondary, group, ...v }: Values) => ({
  ...v,
  group: group ?? null,
  phone: { primary: primary ?? null, secondary: secondary ?? null },
});

function Contacts() {
  const client = useQueryClient();
  const [editing, setEditing] = useState<Contact>();
  const refresh = () => client.invalidateQueries();
  return (
    <>
      <ListView<Contact>
        path="/managed/contacts"
        title="Contacts"
        rowKey={(r) => r.id}
        filters={[{ key: 'group', label: 'Group' }]}
        columns={[
          { key: 'name', label: 'Name' },
          { key: 'email', label: 'Email' },
          { key: 'primary', label: 'Phone', render: (r) => r.phone.primary ?? '—' },
          { key: 'secondary', label: 'Second phone', render: (r) => r.phone.secondary ?? '—' },
          { key: 'group', label: 'Group' },
          editColumn(setEditing),
          removeColumn('Delete', (r) => `/managed/contacts/${r.id}`, refresh),
        ]}
      />
      {editing ? (
        <Section title={`Edit ${editing.name}`}>
          <Form
            key={editing.id}
            fields={contactFields(editing)}
            submitLabel="Save contact"
            onSubmit={async (v) => {
              await put(`/managed/contacts/${editing.id}`, contactBody(v));
              setEditing(undefined);
              await refresh();
            }}
          />
        </Section>
      ) : null}
      <Disclosure label="Add a contact">
        <Form
          fields={contactFields()}
          submitLabel="Add contact"
          onSubmit={async (v) => {
            await post('/managed/contacts', contactBody(v));
            await refresh();
          }}
        />
      </Disclosure>
    </>
  );
}

function Credentials() {
  const client = useQueryClient();
  // A sent secret leaves the page at once: the forms start empty again.
  const [sent, setSent] = useState(0);
  const refresh = async () => {
    setSent((n) => n + 1);
    await client.invalidateQueries();
  };
  const creds = useCredentials();
  const key = useQuery({
    queryKey: ['/managed/credentials/sshkey'],
    queryFn: () => get<{ ssh_key: string }>('/managed/credentials/sshkey'),
  });
  return (
    <>
      <ListView<Credential>
        path="/managed/credentials"
        title="Credentials"
        rowKey={(r) => r.id}
        columns={[
          { key: 'label', label: 'Label' },
          { key: 'last_decrypted', label: 'Last opened by support' },
          {
            key: 'revoke',
            label: 'Revoke',
            render: (r) => (
              <ActionButton
                secondary
                label="Revoke"
                confirm={`Revoke ${r.label}? It is taken off every service.`}
                run={async () => {
                  await post(`/managed/credentials/${r.id}/revoke`);
                  await refresh();
                }}
              />
            ),
          },
        ]}
      />
      <Disclosure label="Add a credential">
        <p className="muted">The username and password are stored sealed and never shown again.</p>
        <Form
          key={`add-${sent}`}
          fields={[
            { name: 'label', label: 'Label', required: true, help: '2 to 75 characters.' },
            { name: 'username', label: 'Username', autoComplete: 'off' },
            { name: 'password', label: 'Password', type: 'password', required: true },
          ]}
          submitLabel="Add credential"
          onSubmit={async (v) => {
            await post('/managed/credentials', v);
            await refresh();
          }}
        />
      </Disclosure>
      <Disclosure label="Replace a credential's username and password">
        <Form
          key={`replace-${sent}-${creds.data?.length ?? 0}`}
          fields={[
            {
              name: 'id',
              label: 'Credential',
              type: 'select',
              required: true,
              options: (creds.data ?? []).map((c) => ({ value: String(c.id), label: c.label })),
            },
            { name: 'username', label: 'Username', autoComplete: 'off' },
            { name: 'password', label: 'Password', type: 'password', required: true },
          ]}
          submitLabel="Replace"
          onSubmit={async ({ id, ...v }: Values) => {
            await post(`/managed/credentials/${id}/update`, v);
            await refresh();
          }}
        />
      </Disclosure>
      <Section title="The account's SSH key">
        <p>Add this public key to the instances Managed should reach.</p>
        <ErrorBox error={key.error} />
        {key.data ? <code className="json">{key.data.ssh_key}</code> : <Loading />}
      </Section>
    </>
  );
}

function Issues() {
  const services = useQuery({
    queryKey: ['/managed/services', 'all'],
    queryFn: () => all<Service>('/managed/services'),
  });
  const label = (id: number) => services.data?.find((s) => s.id === id)?.label ?? `#${id}`;
  return (
    <ListView<Issue>
      path="/managed/issues"
      title="Issues"
      rowKey={(r) => r.id}
      columns={[
        { key: 'created', label: 'Opened' },
        {
          key: 'services',
          label: 'Services',
          render: (r) => r.services.map(label).join(', '),
        },
        {
          key: 'entity',
          label: 'Ticket',
          render: (r) => (
            <Link to={`/console/support/tickets/${r.entity.id}`}>{r.entity.label}</Link>
          ),
        },
      ]}
    />
  );
}

function SshAccess() {
  const client = useQueryClient();
  const rows = useQuery({
    queryKey: ['/managed/compute-settings', 'all'],
    queryFn: () => all<Settings>('/managed/compute-settings'),
  });
  return (
    <>
      <ListView<Settings>
        path="/managed/compute-settings"
        title="SSH access to instances"
        rowKey={(r) => r.id}
        columns={[
          { key: 'label', label: 'Instance' },
          { key: 'access', label: 'Access', render: (r) => (r.ssh.access ? 'yes' : 'no') },
          { key: 'user', label: 'User', render: (r) => r.ssh.user ?? 'root' },
          { key: 'ip', label: 'Address', render: (r) => r.ssh.ip },
          { key: 'port', label: 'Port', render: (r) => r.ssh.port ?? 22 },
        ]}
      />
      <Disclosure label="Change an instance's SSH access">
        <Form
          key={rows.data?.length ?? 0}
          fields={[
            {
              name: 'id',
              label: 'Instance',
              type: 'select',
              required: true,
              options: (rows.data ?? []).map((r) => ({ value: String(r.id), label: r.label })),
            },
            { name: 'access', label: 'Managed may connect', type: 'checkbox', initial: true },
            { name: 'user', label: 'User (empty: root)' },
            { name: 'ip', label: 'Address ("any" or one of its addresses)', initial: 'any' },
            { name: 'port', label: 'Port (empty: 22)', type: 'number' },
          ]}
          submitLabel="Save"
          onSubmit={async ({ id, access, user, ip, port }: Values) => {
            await put(`/managed/compute-settings/${id}`, {
              ssh: { access, user: user ?? null, ip: ip ?? 'any', port: port ?? null },
            });
            await client.invalidateQueries();
          }}
        />
      </Disclosure>
    </>
  );
}

function ManagedStats() {
  const q = useQuery({
    queryKey: ['/managed/stats'],
    queryFn: () => get<Stats>('/managed/stats'),
    refetchInterval: 60_000,
  });
  // The charts redraw when the figures change, not at every render.
  const charts = useMemo(() => {
    const d = q.data?.data;
    if (!d || Array.isArray(d)) return undefined;
    const pts = (p: Point[]) => p.map((x) => [x.x, x.y]);
    return {
      cpu: [{ label: 'CPU', points: pts(d.cpu), color: '#0a58a8' }],
      net: [
        { label: 'in', points: pts(d.net_in), color: '#17692e' },
        { label: 'out', points: pts(d.net_out), color: '#a8231b' },
      ],
      disk: [
        { label: 'I/O', points: pts(d.disk), color: '#7a5200' },
        { label: 'swap', points: pts(d.swap), color: '#4f5b66' },
      ],
    };
  }, [q.data]);
  if (q.error) return <ErrorBox error={q.error} />;
  if (!q.data) return <Loading />;
  const d = q.data.data;
  return (
    <Section title="Statistics (last 24 hours, all instances)">
      {Array.isArray(d) ? d.map((m) => <p key={m}>{m}</p>) : null}
      {charts ? (
        <>
          <Chart title="CPU" unit="%" series={charts.cpu} />
          <Chart title="Public network" unit=" b/s" series={charts.net} />
          <Chart title="Disk I/O" unit=" blocks/s" series={charts.disk} />
        </>
      ) : null}
    </Section>
  );
}
