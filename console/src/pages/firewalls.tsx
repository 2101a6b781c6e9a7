import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { ActionButton, Disclosure, Form, removeColumn } from '../components/form';
import { useCan } from '../components/layout';
import { ListView } from '../components/list';
import { Details, ErrorBox, Loading, Section, Status } from '../components/ui';
import { del, get, post, put } from '../lib/api';
import { useOptions } from '../lib/catalogue';

interface Firewall {
  id: number;
  label: string;
  status: string;
  tags: string[];
  created: string;
  updated: string;
}

export function Firewalls() {
  const can = useCan();
  const client = useQueryClient();
  const templates = useOptions<{ slug: string }>('/networking/firewalls/templates', (t) => ({
    value: t.slug,
    label: t.slug,
  }));
  return (
    <>
      <h1>Firewalls</h1>
      <ListView<Firewall>
        path="/networking/firewalls"
        title="Cloud firewalls"
        rowKey={(r) => r.id}
        filters={[
          { key: 'label', label: 'Label' },
          { key: 'status', label: 'Status' },
          { key: 'tags', label: 'Tag' },
        ]}
        orderBy={['label', 'created']}
        columns={[
          {
            key: 'label',
            label: 'Label',
            render: (r) => <Link to={`/console/firewalls/${r.id}`}>{r.label}</Link>,
          },
          { key: 'status', label: 'Status', render: (r) => <Status value={r.status} /> },
          { key: 'created', label: 'Created' },
        ]}
      />
      {can.add('firewall') ? (
        <Disclosure label="Create a firewall">
          <Form
            fields={[
              { name: 'label', label: 'Label', required: true },
              {
                name: 'template',
                label: 'Rules from a template',
                type: 'select',
                options: templates,
                help: "A template's rules and policies; empty: the policies below and no rules.",
              },
              {
                name: 'inbound_policy',
                label: 'Inbound policy',
                type: 'select',
                initial: 'DROP',
                options: POLICIES,
              },
              {
                name: 'outbound_policy',
                label: 'Outbound policy',
                type: 'select',
                initial: 'ACCEPT',
                options: POLICIES,
              },
            ]}
            submitLabel="Create firewall"
            onSubmit={async (v) => {
              let rules: Record<string, unknown> = {
                inbound_policy: v.inbound_policy ?? 'DROP',
                outbound_policy: v.outbound_policy ?? 'ACCEPT',
                inbound: [],
                outbound: [],
              };
              if (v.template !== undefined) {
                const t = await get<{ rules: Rules }>(
                  `/networking/firewalls/templates/${encodeURIComponent(String(v.template))}`,
                );
                rules = {
                  inbound_policy: t.rules.inbound_policy,
                  outbound_policy: t.rules.outbound_policy,
                  inbound: t.rules.inbound,
                  outbound: t.rules.outbound,
                };
              }
              await post('/networking/firewalls', { label: v.label, rules });
              await client.invalidateQueries();
            }}
          />
        </Disclosure>
      ) : null}
      {can.account !== null ? <DefaultFirewalls writable={can.account === 'read_write'} /> : null}
    </>
  );
}

const DEFAULT_KINDS = [
  ['compute', 'New instances (legacy interfaces)'],
  ['public_interface', 'New public interfaces'],
  ['vpc_interface', 'New VPC interfaces'],
  ['nodebalancer', 'New NodeBalancers'],
] as const;

/** The account's default firewalls (`/networking/firewalls/settings`): what new devices get. */
function DefaultFirewalls({ writable }: { writable: boolean }) {
  const client = useQueryClient();
  const q = useQuery({
    queryKey: ['/networking/firewalls/settings'],
    queryFn: () =>
      get<{ default_firewall_ids: Record<string, number | null> }>(
        '/networking/firewalls/settings',
      ),
  });
  const firewalls = useOptions<{ id: number; label: string }>('/networking/firewalls', (f) => ({
    value: String(f.id),
    label: f.label,
  }));
  const labelOf = (id: number | null | undefined) =>
    id === null || id === undefined
      ? null
      : (firewalls.find((f) => f.value === String(id))?.label ?? String(id));
  if (q.error) return <ErrorBox error={q.error} />;
  if (!q.data) return <Loading />;
  const ids = q.data.default_firewall_ids;
  return (
    <Section title="Default firewalls">
      <Details
        value={Object.fromEntries(DEFAULT_KINDS.map(([k, label]) => [label, labelOf(ids[k])]))}
      />
      {writable ? (
        <Disclosure label="Change the default firewalls">
          <Form
            fields={DEFAULT_KINDS.map(([k, label]) => ({
              name: k,
              label,
              type: 'select' as const,
              options: firewalls,
              initial: ids[k] === null || ids[k] === undefined ? '' : String(ids[k]),
            }))}
            submitLabel="Save default firewalls"
            onSubmit={async (v) => {
              await put('/networking/firewalls/settings', {
                default_firewall_ids: Object.fromEntries(
                  DEFAULT_KINDS.map(([k]) => [k, v[k] === undefined ? null : Number(v[k])]),
                ),
              });
              await client.invalidateQueries();
            }}
          />
        </Disclosure>
      ) : null}
    </Section>
  );
}

const POLICIES = [
  { value: 'ACCEPT', label: 'ACCEPT' },
  { value: 'DROP', label: 'DROP' },
];
const PROTOCOLS = ['TCP', 'UDP', 'ICMP', 'IPENCAP'];

interface Rule {
  action: string;
  protocol: string;
  ports?: string | null;
  label?: string;
  description?: string;
  addresses: { ipv4?: string[]; ipv6?: string[] };
  /** An entry that names a rule set (then it has no other field): shown, kept, removable. */
  ruleset?: number;
}
interface Rules {
  /** One more at each change of the rules (their history). */
  version?: number;
  fingerprint?: string;
  inbound: Rule[];
  outbound: Rule[];
  inbound_policy: string;
  outbound_policy: string;
}

/** The rule editor: each direction's rules as editable rows, saved together (PUT …/rules). */
function RulesEditor({ path, writable }: { path: string; writable: boolean }) {
  const client = useQueryClient();
  const q = useQuery({ queryKey: [`${path}/rules`], queryFn: () => get<Rules>(`${path}/rules`) });
  const [draft, setDraft] = useState<Rules>();
  const [error, setError] = useState<unknown>();
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    if (q.data && !draft) setDraft(q.data);
  }, [q.data, draft]);
  if (q.error) return <ErrorBox error={q.error} />;
  if (!draft) return <Loading />;
  const change = (dir: 'inbound' | 'outbound', i: number, patch: Partial<Rule>) => {
    setSaved(false);
    setDraft({ ...draft, [dir]: draft[dir].map((r, j) => (j === i ? { ...r, ...patch } : r)) });
  };
  const list = (s: string) => s.split(/[\s,]+/).filter(Boolean);
  return (
    <Section title="Rules">
      {q.data?.version !== undefined ? (
        <p className="help" data-testid="rules-version">
          Version {q.data.version}
          {q.data.fingerprint ? `, fingerprint ${q.data.fingerprint}` : ''}
        </p>
      ) : null}
      <ErrorBox error={error} />
      {(['inbound', 'outbound'] as const).map((dir) => (
        <div key={dir} className="rules-editor">
          <h3>{dir === 'inbound' ? 'Inbound' : 'Outbound'} rules</h3>
          <label htmlFor={`${dir}-policy`}>Default {dir} policy</label>
          <select
            id={`${dir}-policy`}
            disabled={!writable}
            value={draft[`${dir}_policy`]}
            onChange={(e) => setDraft({ ...draft, [`${dir}_policy`]: e.target.value })}
          >
            {POLICIES.map((p) => (
              <option key={p.value} value={p.value}>
                {p.label}
              </option>
            ))}
          </select>
          <div className="table-wrap">
            <table>
              <caption className="sr-only">{dir} rules</caption>
              <thead>
                <tr>
                  <th scope="col">Label</th>
                  <th scope="col">Action</th>
                  <th scope="col">Protocol</th>
                  <th scope="col">Ports</th>
                  <th scope="col">IPv4 sources</th>
                  <th scope="col">IPv6 sources</th>
                  {writable ? <th scope="col">Remove</th> : null}
                </tr>
              </thead>
              <tbody>
                {draft[dir].map((r, i) => {
                  const n = `${dir} rule ${i + 1}`;
                  const remove = writable ? (
                    <td>
                      <button
                        type="button"
                        className="secondary"
                        aria-label={`Remove ${n}`}
                        onClick={() =>
                          setDraft({ ...draft, [dir]: draft[dir].filter((_, j) => j !== i) })
                        }
                      >
                        Remove
                      </button>
                    </td>
                  ) : null;
                  if (r.ruleset !== undefined)
                    return (
                      // biome-ignore lint/suspicious/noArrayIndexKey: rules have no id; the order is theirs.
                      <tr key={i}>
                        <td colSpan={6}>Rule set {r.ruleset} (its rules apply here)</td>
                        {remove}
                      </tr>
                    );
                  return (
                    // biome-ignore lint/suspicious/noArrayIndexKey: rules have no id; the order is theirs.
                    <tr key={i}>
                      <td>
                        <input
                          aria-label={`${n} label`}
                          disabled={!writable}
                          value={r.label ?? ''}
                          onChange={(e) => change(dir, i, { label: e.target.value })}
                        />
                      </td>
                      <td>
                        <select
                          aria-label={`${n} action`}
                          disabled={!writable}
                          value={r.action}
                          onChange={(e) => change(dir, i, { action: e.target.value })}
                        >
                          {POLICIES.map((p) => (
                            <option key={p.value} value={p.value}>
                              {p.label}
                            </option>
                          ))}
                        </select>
                      </td>
                      <td>
                        <select
                          aria-label={`${n} protocol`}
                          disabled={!writable}
                          value={r.protocol}
                          onChange={(e) => change(dir, i, { protocol: e.target.value })}
                        >
                          {PROTOCOLS.map((p) => (
                            <option key={p} value={p}>
                              {p}
                            </option>
                          ))}
                        </select>
                      </td>
                      <td>
                        <input
                          aria-label={`${n} ports`}
                          disabled={!writable}
                          value={r.ports ?? ''}
                          onChange={(e) => change(dir, i, { ports: e.target.value })}
                        />
                      </td>
                      <td>
                        <input
                          aria-label={`${n} IPv4 addresses`}
                          disabled={!writable}
                          value={(r.addresses.ipv4 ?? []).join(', ')}
                          onChange={(e) =>
                            change(dir, i, {
                              addresses: { ...r.addresses, ipv4: list(e.target.value) },
                            })
                          }
                        />
                      </td>
                      <td>
                        <input
                          aria-label={`${n} IPv6 addresses`}
                          disabled={!writable}
                          value={(r.addresses.ipv6 ?? []).join(', ')}
                          onChange={(e) =>
                            change(dir, i, {
                              addresses: { ...r.addresses, ipv6: list(e.target.value) },
                            })
                          }
                        />
                      </td>
                      {remove}
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          {writable ? (
            <div className="actions">
              <button
                type="button"
                className="secondary"
                onClick={() =>
                  setDraft({
                    ...draft,
                    [dir]: [
                      ...draft[dir],
                      {
                        action: 'ACCEPT',
                        protocol: 'TCP',
                        ports: '',
                        label: '',
                        addresses: { ipv4: ['0.0.0.0/0'], ipv6: ['::/0'] },
                      },
                    ],
                  })
                }
              >
                Add an {dir} rule
              </button>
            </div>
          ) : null}
        </div>
      ))}
      {writable ? (
        <div className="actions">
          <button
            type="button"
            onClick={async () => {
              setError(undefined);
              const clean = (r: Rule): Rule | { ruleset: number } =>
                r.ruleset !== undefined
                  ? { ruleset: r.ruleset }
                  : {
                      action: r.action,
                      protocol: r.protocol,
                      ...(r.ports ? { ports: r.ports } : {}),
                      ...(r.label ? { label: r.label } : {}),
                      ...(r.description ? { description: r.description } : {}),
                      addresses: r.addresses,
                    };
              try {
                const next = await put<Rules>(`${path}/rules`, {
                  inbound_policy: draft.inbound_policy,
                  outbound_policy: draft.outbound_policy,
                  inbound: draft.inbound.map(clean),
                  outbound: draft.outbound.map(clean),
                });
                setDraft(next);
                setSaved(true);
                await client.invalidateQueries();
              } catch (err) {
                setError(err);
              }
            }}
          >
            Save rules
          </button>
          {saved ? (
            <span className="ok-text" role="status">
              Rules saved.
            </span>
          ) : null}
        </div>
      ) : null}
    </Section>
  );
}

export function FirewallDetail() {
  const { id } = useParams();
  const navigate = useNavigate();
  const client = useQueryClient();
  const can = useCan();
  const path = `/networking/firewalls/${id}`;
  const q = useQuery({ queryKey: [path], queryFn: () => get<Firewall>(path) });
  const instances = useOptions<{ id: number; label: string }>('/compute/instances', (i) => ({
    value: String(i.id),
    label: i.label,
  }));
  if (q.error) return <ErrorBox error={q.error} />;
  if (!q.data) return <Loading />;
  const f = q.data;
  const writable = can.write('firewall', f.id);
  const refresh = () => client.invalidateQueries();
  return (
    <>
      <div className="page-head">
        <h1>{f.label}</h1>
        <Status value={f.status} />
        {writable ? (
          <div className="head-actions">
            <ActionButton
              label={f.status === 'enabled' ? 'Disable' : 'Enable'}
              secondary
              run={async () => {
                await put(path, { status: f.status === 'enabled' ? 'disabled' : 'enabled' });
                await refresh();
              }}
            />
            <ActionButton
              label="Delete"
              danger
              confirm={`Delete ${f.label}?`}
              run={async () => {
                await del(path);
                await refresh();
                navigate('/console/firewalls');
              }}
            />
          </div>
        ) : null}
      </div>
      <RulesEditor path={path} writable={writable} />
      <ListView<{ updated: string; status: string; rules: { version: number } }>
        path={`${path}/history`}
        title="Rules history"
        rowKey={(r) => r.rules.version}
        columns={[
          { key: 'version', label: 'Version', render: (r) => r.rules.version },
          { key: 'updated', label: 'Made' },
          { key: 'status', label: 'Firewall status', render: (r) => <Status value={r.status} /> },
        ]}
      />
      <ListView<{ id: number; entity: { id: number; label: string; type: string } }>
        path={`${path}/devices`}
        title="Devices"
        rowKey={(r) => r.id}
        columns={[
          { key: 'type', label: 'Type', render: (r) => r.entity.type },
          { key: 'label', label: 'Label', render: (r) => r.entity.label },
          ...(writable
            ? [removeColumn<{ id: number }>('Remove', (r) => `${path}/devices/${r.id}`, refresh)]
            : []),
        ]}
      />
      {writable ? (
        <Disclosure label="Add an instance">
          <Form
            fields={[
              { name: 'id', label: 'Instance', type: 'select', options: instances, required: true },
            ]}
            submitLabel="Add device"
            onSubmit={async (v) => {
              await post(`${path}/devices`, { type: 'compute', id: Number(v.id) });
              await refresh();
            }}
          />
        </Disclosure>
      ) : null}
    </>
  );
}
